// The conformance probe's curl lines are the one renderer every part shares (src/client/curl.ts).
export { renderCurl, paddedBodyRecipe, shellQuote, CURL_INLINE_BODY_LIMIT_BYTES } from '../client/curl.js';
export type { CurlAuth, CurlInput } from '../client/curl.js';
