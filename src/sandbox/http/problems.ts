/** The sandbox's error answers: `{ message, errors?: [{ field?, message }], requestId }` (PRODUCT.md section 6). */
import type { FieldError } from '../create-order.js';

export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export function badParameter(field: string, message: string): HttpProblem {
  return new HttpProblem(400, `Invalid query parameter '${field}': ${message}`, [{ field, message }]);
}

/** Messages for the framework's own 4xx errors, worded for a person reading a log. */
export function describeFrameworkError(code: string | undefined, fallback: string, contentType: string | undefined): string {
  switch (code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'Request body is not valid JSON.';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'Request body is empty: send a JSON object.';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large (limit 1 MiB).';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `Unsupported content type '${contentType ?? '(none)'}'.`;
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'Content-Length does not match the body.';
    case 'FST_ERR_BAD_URL':
      return 'The URL is not valid (bad percent-encoding).';
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return 'Send multipart/form-data with GrantType, ClientId and ClientSecret.';
    default:
      return fallback;
  }
}
