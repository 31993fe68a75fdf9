import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { verifiedEvent, WEBHOOK_TOLERANCE_SECONDS } from '../../src/billing/webhook-signature.js';
import { InvalidInput } from '../../src/errors.js';

const SECRET = 'whsec_unit_secret';
const SIGNED_AT = 1_767_225_600;
const BODY = JSON.stringify({ id: 'evt_unit', object: 'event', type: 'checkout.session.completed', data: { object: {} } });

const hmac = (body: string, timestamp = SIGNED_AT, secret = SECRET) =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
const sdkHeader = (body = BODY, timestamp = SIGNED_AT, secret = SECRET) =>
  Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp });

function sdkAccepts(body: string, header: string, nowMs: number): boolean {
  try {
    Stripe.webhooks.constructEvent(body, header, SECRET, WEBHOOK_TOLERANCE_SECONDS, undefined, nowMs);
    return true;
  } catch {
    return false;
  }
}

function weAccept(body: string, header: string, nowMs: number): boolean {
  try {
    verifiedEvent(SECRET, body, header, nowMs);
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInput);
    return false;
  }
}

const at = (seconds: number) => seconds * 1000;

describe('verifiedEvent: Stripe’s signature scheme, held to the SDK’s constructEvent', () => {
  it.each([
    ['the SDK’s own header', BODY, sdkHeader(), at(SIGNED_AT + 1), true],
    ['the last second of the tolerance', BODY, sdkHeader(), at(SIGNED_AT + WEBHOOK_TOLERANCE_SECONDS), true],
    ['a second too late', BODY, sdkHeader(), at(SIGNED_AT + WEBHOOK_TOLERANCE_SECONDS + 1), false],
    ['a timestamp ahead of the clock', BODY, sdkHeader(BODY, SIGNED_AT + 1000), at(SIGNED_AT), true],
    ['another secret', BODY, sdkHeader(BODY, SIGNED_AT, 'whsec_other'), at(SIGNED_AT), false],
    ['a changed body', `${BODY} `, sdkHeader(), at(SIGNED_AT), false],
    ['a changed timestamp', BODY, `t=${SIGNED_AT + 1},v1=${hmac(BODY)}`, at(SIGNED_AT), false],
    ['two v1 signatures, the second right', BODY, `t=${SIGNED_AT},v1=${'0'.repeat(64)},v1=${hmac(BODY)}`, at(SIGNED_AT), true],
    ['a v0 signature only', BODY, `t=${SIGNED_AT},v0=${hmac(BODY)}`, at(SIGNED_AT), false],
    ['v0 beside a right v1', BODY, `t=${SIGNED_AT},v0=nonsense,v1=${hmac(BODY)}`, at(SIGNED_AT), true],
    ['upper-case hex', BODY, `t=${SIGNED_AT},v1=${hmac(BODY).toUpperCase()}`, at(SIGNED_AT), false],
    ['a shortened signature', BODY, `t=${SIGNED_AT},v1=${hmac(BODY).slice(0, 63)}`, at(SIGNED_AT), false],
    ['no timestamp', BODY, `v1=${hmac(BODY)}`, at(SIGNED_AT), false],
    ['no signature', BODY, `t=${SIGNED_AT}`, at(SIGNED_AT), false],
    ['spaces after commas', BODY, `t=${SIGNED_AT}, v1=${hmac(BODY)}`, at(SIGNED_AT), false],
    ['garbage', BODY, 'not a signature header', at(SIGNED_AT), false],
  ])('%s', (_case, body, header, nowMs, accepted) => {
    expect(sdkAccepts(body, header, nowMs)).toBe(accepted);
    expect(weAccept(body, header, nowMs)).toBe(accepted);
  });

  it('gives the event the SDK gives', () => {
    const header = sdkHeader();
    expect(verifiedEvent(SECRET, BODY, header, at(SIGNED_AT))).toEqual(
      Stripe.webhooks.constructEvent(BODY, header, SECRET, WEBHOOK_TOLERANCE_SECONDS, undefined, at(SIGNED_AT)),
    );
  });

  it.each([
    ['no header', BODY, undefined],
    ['a signed body that is not JSON', '{"id": ', sdkHeader('{"id": ')],
    ['a signed body that is not an event', '[1, 2]', sdkHeader('[1, 2]')],
    ['a signed null', 'null', sdkHeader('null')],
  ])('refuses %s with 400 INVALID_INPUT', (_case, body, header) => {
    expect(() => verifiedEvent(SECRET, body, header, at(SIGNED_AT))).toThrow(InvalidInput);
  });
});
