import type { OperationReference } from '../http/operation-reference.js';

/*
 * What the API reference says of the billing operations: the group, a summary and a description,
 * a request body to copy and an answer (most taken from a real server's answers, with the
 * addresses made public-looking). The OpenAPI document reads them (http/openapi.ts), and
 * openapi-docs.test.ts checks each example against its route's schema.
 */

export const billingReference: OperationReference = {
  'GET /api/v1/billing/balance': {
    doc: [
      'Billing',
      'Read your balance',
      'Credits (Ds) held, spent so far, and whether a run can start now: of the skill named by `skill`, counting its price and its first model call, or without it of a priced agent skill.',
    ],
    response: {
      balance: 99,
      totalSpent: 1,
      canExecute: true,
      isAdmin: false,
    },
  },
  'GET /api/v1/billing/packs': {
    doc: [
      'Billing',
      'List credit packs',
      'The packs at the caller’s prices; a Based subscription’s discount is already taken off.',
    ],
    response: {
      packs: [
        {
          id: 'pack_100',
          name: '100 Ds',
          credits: 100,
          priceCents: 100,
        },
        {
          id: 'pack_250',
          name: '250 Ds',
          credits: 250,
          priceCents: 225,
        },
        {
          id: 'pack_500',
          name: '500 Ds',
          credits: 500,
          priceCents: 425,
        },
        {
          id: 'pack_1000',
          name: '1,000 Ds',
          credits: 1000,
          priceCents: 800,
        },
        {
          id: 'pack_5000',
          name: '5,000 Ds',
          credits: 5000,
          priceCents: 3750,
        },
      ],
    },
  },
  'POST /api/v1/billing/purchase': {
    doc: [
      'Billing',
      'Start buying a pack',
      'Answers the hosted checkout’s address. The credits are granted when the payment provider confirms the payment, even if the person never comes back.',
    ],
    request: {
      packId: 'pack_500',
      email: 'ada@example.com',
      successUrl: 'https://skillet.example.com/app/billing?checkout=success',
      cancelUrl: 'https://skillet.example.com/app/billing?checkout=cancel',
    },
    response: {
      checkoutUrl: 'https://skillet.example.com/billing/checkout/cs_local_pzJygB0pv8o7yeit1nhF1cOc',
    },
  },
  'POST /api/v1/billing/subscribe': {
    doc: [
      'Billing',
      'Start a Based subscription',
      'Answers the hosted checkout’s address for the monthly plan; each paid month grants its credits.',
    ],
    request: {
      email: 'ada@example.com',
      successUrl: 'https://skillet.example.com/app/billing?checkout=success',
      cancelUrl: 'https://skillet.example.com/app/billing?checkout=cancel',
    },
    response: {
      checkoutUrl: 'https://skillet.example.com/billing/checkout/cs_local_MRYim3PAKxOQEYk4QmWNUf6h',
    },
  },
  'GET /api/v1/billing/transactions': {
    doc: ['Billing', 'List transactions', 'The 50 newest ledger entries, newest first.'],
    response: {
      transactions: [
        {
          id: 3,
          userId: '60c4244f-54f1-414d-962d-f46da05b4219',
          amount: -1,
          type: 'usage',
          description: 'Run 22bb30ad-45dd-4217-9fd2-d402b7c2133d: 1 Ds',
          executionId: '22bb30ad-45dd-4217-9fd2-d402b7c2133d',
          paymentSessionId: null,
          createdAt: '2026-01-01T00:00:00.000Z',
        },
        {
          id: 1,
          userId: '60c4244f-54f1-414d-962d-f46da05b4219',
          amount: 100,
          type: 'purchase',
          description: 'Sign-up credits: 100 Ds',
          executionId: null,
          paymentSessionId: null,
          createdAt: '2026-01-01T00:00:00.000Z',
        },
      ],
    },
  },
  'GET /api/v1/billing/subscription/tier': {
    doc: ['Billing', 'Read your plan', 'The plan in force now, what it gives, and when a subscription runs until.'],
    response: {
      tier: 'paygmode',
      info: {
        name: 'Pay as you go',
        priceCents: 0,
        priceDisplay: '$0',
        monthlyCredits: 0,
        packDiscount: 0,
      },
      subscriptionExpiresAt: null,
      isTestMode: true,
    },
  },
  'GET /api/v1/billing/subscription/info': {
    doc: ['Billing', 'Compare plans', 'What each plan costs and gives.'],
    response: {
      modes: {
        byokmode: {
          name: 'Bring your own key',
          priceCents: 0,
          priceDisplay: '$0',
          monthlyCredits: 0,
          packDiscount: 0,
        },
        paygmode: {
          name: 'Pay as you go',
          priceCents: 0,
          priceDisplay: '$0',
          monthlyCredits: 0,
          packDiscount: 0,
        },
        basedmode: {
          name: 'Based',
          priceCents: 2900,
          priceDisplay: '$29.00 / month',
          monthlyCredits: 2000,
          packDiscount: 0.2,
        },
      },
    },
  },
  'GET /api/v1/billing/subscription': {
    doc: [
      'Billing',
      'Read your subscription',
      'Whether a Based subscription is on, whether it renews, and until when it is paid.',
    ],
    response: {
      subscribed: false,
      renews: false,
      paidUntil: null,
    },
  },
  'POST /api/v1/billing/subscription/cancel': {
    doc: [
      'Billing',
      'Cancel your subscription',
      'Stops the Based subscription from renewing. What was paid runs to its end: Based and its credits stay until then. 409 when nothing renews.',
    ],
    response: {
      subscribed: true,
      renews: false,
      paidUntil: '2026-02-01T00:00:00.000Z',
    },
  },
  'GET /api/v1/billing/publishable-key': {
    doc: ['Billing', 'Get the payment form key', 'The payment provider’s public key for client-side payment forms.'],
    response: {
      publishableKey: 'pk_test_local',
    },
  },
  'GET /api/v1/byok': {
    doc: ['Billing', 'Read your own model key', 'Whether a key is stored, a preview of it, and its provider.'],
    response: {
      hasKey: true,
      keyPreview: 'sk-ant-…CdEf',
      provider: 'anthropic',
    },
  },
  'PUT /api/v1/byok': {
    doc: [
      'Billing',
      'Store your own model key',
      'An sk-ant- key goes to Anthropic, any other sk- key to OpenAI. Model calls then cost 0 Ds; a skill’s own price is still paid.',
    ],
    request: { key: 'sk-ant-api03-yourOwnKeyGoesHere' },
    response: {
      hasKey: true,
      keyPreview: 'sk-ant-…CdEf',
      provider: 'anthropic',
    },
  },
  'DELETE /api/v1/byok': {
    doc: ['Billing', 'Remove your own model key', 'Model calls are paid in Ds again.'],
    response: {
      hasKey: false,
      keyPreview: null,
    },
  },
};
