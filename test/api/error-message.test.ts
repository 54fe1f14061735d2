import { describe, expect, it } from 'vitest';
import { describeErrorBody, findRequestId } from '../../src/api/error-message.js';

const json = 'application/json';
const msg = (body: unknown, status = 400) => describeErrorBody(JSON.stringify(body), json, status).message;

describe('describeErrorBody', () => {
  it('reads the documented shape, field errors in brackets', () => {
    const body = {
      message: 'Validation failed',
      errors: [
        { field: 'orderDetails.subTotal', message: 'must equal the sum of line items' },
        { field: 'customerDetails.shippingAddress.phone', message: 'must have at least 10 digits' },
      ],
      requestId: 'r-1',
    };
    expect(msg(body)).toBe(
      'Validation failed (orderDetails.subTotal: must equal the sum of line items; customerDetails.shippingAddress.phone: must have at least 10 digits)',
    );
    expect(describeErrorBody(JSON.stringify(body), json, 400).body).toEqual(body);
  });

  it('reads the documented shape without errors, and field errors without a field', () => {
    expect(msg({ message: '0 Shippable Quantity', requestId: 'r' })).toBe('0 Shippable Quantity');
    expect(msg({ message: 'Bad order', errors: [{ message: 'no lines' }] })).toBe('Bad order (no lines)');
  });

  it('reads { error } and OAuth { error, error_description }', () => {
    expect(msg({ error: 'Rate limit exceeded' }, 429)).toBe('Rate limit exceeded');
    expect(msg({ error: 'invalid_client', error_description: 'Client authentication failed' }, 401)).toBe('invalid_client: Client authentication failed');
    expect(msg({ error: { code: 'E42', message: 'Backend exploded' } }, 500)).toBe('Backend exploded');
  });

  it('reads RFC 7807 problem details, title and detail', () => {
    expect(msg({ type: 'about:blank', title: 'Not Found', detail: "Order 'A-1' does not exist", status: 404 }, 404)).toBe(
      "Not Found: Order 'A-1' does not exist",
    );
    expect(msg({ title: 'Conflict' }, 409)).toBe('Conflict');
  });

  it('reads ASP.NET validation problems, errors as a map of field to messages', () => {
    const body = { title: 'One or more validation errors occurred.', status: 400, errors: { 'OrderDetails.SubTotal': ['must be >= 0', 'is required'] } };
    expect(msg(body)).toBe('One or more validation errors occurred. (OrderDetails.SubTotal: must be >= 0, is required)');
  });

  it('reads a list of plain strings, at the top or under errors', () => {
    expect(msg({ errors: ['city is required', 'phone is too short'] })).toBe('city is required; phone is too short');
    expect(msg(['first', 'second'])).toBe('first; second');
  });

  it('reads a bare JSON string and the capitalised Message of some frameworks', () => {
    expect(msg('Order rejected')).toBe('Order rejected');
    expect(msg({ Message: 'An error has occurred.' }, 500)).toBe('An error has occurred.');
  });

  it('falls back to the status text for JSON without anything readable', () => {
    expect(msg({ code: 17 }, 422)).toBe('Unprocessable Entity');
    expect(msg({}, 500)).toBe('Internal Server Error');
  });

  it('keeps a text/plain body as the message, whitespace collapsed', () => {
    const described = describeErrorBody('Order  rejected:\n  quota exceeded\n', 'text/plain', 400);
    expect(described).toEqual({ body: 'Order  rejected:\n  quota exceeded\n', message: 'Order rejected: quota exceeded' });
  });

  it('parses JSON served as text/plain or text/json', () => {
    expect(describeErrorBody('{"message":"nope"}', 'text/plain', 400)).toEqual({ body: { message: 'nope' }, message: 'nope' });
    expect(describeErrorBody('{"message":"nope"}', 'text/json', 400).message).toBe('nope');
  });

  it('gives an HTML page its title, never the markup', () => {
    const html = '<!DOCTYPE html><html><head><title>502 Bad Gateway &amp; friends</title></head><body><h1>Oops</h1></body></html>';
    expect(describeErrorBody(html, 'text/html', 502).message).toBe('502 Bad Gateway & friends');
    expect(describeErrorBody('<html><body><h1>Service <b>down</b></h1></body></html>', 'text/html', 503).message).toBe('Service down');
    expect(describeErrorBody('<html><body><p>x</p></body></html>', undefined, 504).message).toBe('Gateway Timeout');
  });

  it('uses the status text for an empty body', () => {
    expect(describeErrorBody('', undefined, 503)).toEqual({ body: '', message: 'Service Unavailable' });
    expect(describeErrorBody('  \n', 'application/json', 404).message).toBe('Not Found');
    expect(describeErrorBody('', undefined, 599).message).toBe('HTTP 599');
  });

  it('treats malformed JSON as text', () => {
    expect(describeErrorBody('{"message": "unterminated', json, 500)).toEqual({ body: '{"message": "unterminated', message: '{"message": "unterminated' });
  });

  it('shortens a huge message', () => {
    const message = describeErrorBody('x'.repeat(5000), 'text/plain', 500).message;
    expect(message.length).toBe(500);
    expect(message.endsWith('…')).toBe(true);
  });
});

describe('findRequestId', () => {
  it('prefers the body, then the x-request-id header', () => {
    expect(findRequestId({ requestId: 'body-id' }, 'header-id')).toBe('body-id');
    expect(findRequestId({ message: 'x' }, 'header-id')).toBe('header-id');
    expect(findRequestId('text', undefined)).toBeUndefined();
  });
});
