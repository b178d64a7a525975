// The access domain's part of the schema: accounts, keys, widget tokens, the viewer, and operator operations.
import './graphql-types.js';
import './graphql-admin.js';
