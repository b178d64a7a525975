// ESLint flat config: eslint's and typescript-eslint's recommended rules; Prettier owns formatting.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // Generated, bundled or installed: rewritten by prisma generate, graphql-codegen, the OpenAPI generator and the builds.
    ignores: [
      'src/generated/',
      'src/rest/__generated__/',
      'openapi/dist/',
      'openapi/types/',
      'dist/',
      'build/',
      'coverage/',
      'bench/results/',
      'bench/postgraphile/node_modules/',
      'test-results/',
      '.data/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // Destructuring a key away to keep the rest is how the code omits a field.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // Pothos plugins and options are typed by augmenting `declare global { namespace PothosSchemaTypes }`.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
    },
  },
  {
    files: ['src/widget/client/**', 'src/analytics/dashboard/client/**'],
    languageOptions: { globals: globals.browser },
  },
);
