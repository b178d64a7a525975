/**
 * What an API key looks like: `key_<id>.<secret>`, the id 1 to 40 letters or digits, the secret 16 to
 * 128 URL-safe characters (letters, digits, `-` and `_`). Keys the server makes are
 * `key_<22 characters>.sk_<43 characters>`; an operator's own ADMIN_API_KEY may be any key of this form.
 */
const keyId = 'key_[A-Za-z0-9]{1,40}';
const keySecret = '[A-Za-z0-9_-]{16,128}';
export const apiKeyPattern = new RegExp(`^(${keyId})\\.(${keySecret})$`);

/**
 * Secrets as they may turn up inside other text (a path a client pasted one into): an API key, the
 * secrets the server makes (a key's `sk_…`, a signing `hs_…`, both base64url) and a webhook's
 * `whsec_…` (base64, so `/`, `+` and `=` too), each not preceded by a letter or digit.
 */
export const secretsInText = new RegExp(`(?<![A-Za-z0-9])(?:${keyId}\\.${keySecret}|(?:sk|hs)_[A-Za-z0-9_-]{16,}|whsec_[A-Za-z0-9+/=]{16,})`, 'g');

export const apiKeyRule = 'key_<id>.<secret>: key_, 1 to 40 letters or digits, a dot, then 16 to 128 letters, digits, "-" or "_"';
