/**
 * The SECRETS_KEY of every test server and server process, so processes sharing a PostgreSQL
 * database (and the test that prepared it) read each other's encrypted secrets.
 */
export const testSecretsKey = 'YvQj2RJguiEfaFV0DJD01hPCQhny+uzA/ktibq/QnPQ=';
