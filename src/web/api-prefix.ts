/** Where the HTTP API lives: every path under it is the API's (its door, its errors). */
export const API_PREFIX = '/api/v1';
