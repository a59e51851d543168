import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  resolve: {
    alias: [{ find: /^\.\.\/src\/calc$/, replacement: fileURLToPath(new URL('./shim/calc.ts', import.meta.url)) }],
  },
});
