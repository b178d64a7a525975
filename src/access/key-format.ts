/**
 * What an API key looks like: `key_<id>.<secret>`, the id 1 to 40 letters or digits, the secret 16 to
 * 128 URL-safe characters (letters, digits, `-` and `_`). Keys the server makes are
 * `key_<22 characters>.sk_<43 characters>`; an operator's own ADMIN_API_KEY may be any key of this form.
 */
export const apiKeyPattern = /^(key_[A-Za-z0-9]{1,40})\.([A-Za-z0-9_-]{16,128})$/;

export const apiKeyRule = 'key_<id>.<secret>: key_, 1 to 40 letters or digits, a dot, then 16 to 128 letters, digits, "-" or "_"';
