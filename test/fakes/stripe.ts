import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Stripe's API on 127.0.0.1: it answers Checkout Session creation the way
 * Stripe does (form-encoded request, JSON session with an id and a hosted URL) and a
 * subscription's update, and keeps every request so tests can check what the SDK sent.
 */
export async function fakeStripe(): Promise<{
  url: string;
  requests: { path: string; form: URLSearchParams }[];
  close(): Promise<void>;
}> {
  const requests: { path: string; form: URLSearchParams }[] = [];
  let counter = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      requests.push({ path: request.url ?? '', form });
      response.setHeader('content-type', 'application/json');
      if (request.method === 'POST' && request.url === '/v1/checkout/sessions') {
        counter += 1;
        const id = `cs_test_fake${counter}`;
        response.setHeader('request-id', `req_fake${counter}`);
        response.end(
          JSON.stringify({
            id,
            object: 'checkout.session',
            mode: form.get('mode'),
            status: 'open',
            payment_status: 'unpaid',
            customer_email: form.get('customer_email'),
            client_reference_id: form.get('client_reference_id'),
            success_url: form.get('success_url'),
            cancel_url: form.get('cancel_url'),
            amount_total: Number(form.get('line_items[0][price_data][unit_amount]')),
            url: `https://checkout.stripe.com/c/pay/${id}`,
            livemode: false,
          }),
        );
        return;
      }
      const subscription = /^\/v1\/subscriptions\/([^/?]+)$/.exec(request.url ?? '');
      if (request.method === 'POST' && subscription) {
        const id = decodeURIComponent(subscription[1] as string);
        // Stripe's answer for a subscription it does not have; tests name such ids "sub_unknown…".
        if (id.startsWith('sub_unknown')) {
          response.statusCode = 404;
          response.end(
            JSON.stringify({
              error: {
                type: 'invalid_request_error',
                code: 'resource_missing',
                param: 'id',
                message: `No such subscription: '${id}'`,
              },
            }),
          );
          return;
        }
        response.end(
          JSON.stringify({
            id,
            object: 'subscription',
            status: 'active',
            cancel_at_period_end: form.get('cancel_at_period_end') === 'true',
            livemode: false,
          }),
        );
        return;
      }
      response.statusCode = 404;
      response.end(
        JSON.stringify({
          error: { type: 'invalid_request_error', message: `Unrecognized request URL (${request.method}: ${request.url})` },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
