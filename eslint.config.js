// Lint rules for moonpool: typescript-eslint's type-aware recommended set over sources and tests, and the thread boundary.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  // Plain scripts that run before the build (no types to check them with).
  {
    files: ['scripts/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { process: 'readonly' } },
  },
  // The thread boundary: the main thread (core/) and the workers (workers/) have only shared/ in
  // common, and shared/ depends on neither.
  threadBoundary('core/**', ['../workers/*', '../ui/*']),
  threadBoundary('workers/**', ['../core/*', '../ui/*']),
  threadBoundary('shared/**', ['../core/*', '../workers/*', '../ui/*']),
);

function threadBoundary(files, forbidden) {
  const message = 'core/ and workers/ share only shared/ (see docs/architecture.md)';
  return {
    files: [files],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: forbidden, message }] }] },
  };
}
