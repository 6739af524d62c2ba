/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The gateway (http://localhost:8080) serves the API and, in production, the
// built `dist/` at the same origin. In development Vite serves the app and
// forwards `/api` (including the SSE stream) to the gateway.
export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    proxy: {
      '/api': {
        target: 'http://localhost:8080',
        changeOrigin: true,
        configure: (proxy) => {
          // Node holds response headers back until the first body chunk; for the
          // SSE stream that delays EventSource "open" until the first ping (15 s).
          proxy.on('proxyRes', (proxyRes, _req, res) => {
            if (String(proxyRes.headers['content-type'] ?? '').startsWith('text/event-stream')) {
              process.nextTick(() => {
                if (!res.headersSent) res.flushHeaders();
              });
            }
          });
        },
      },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.tsx', 'src/**/*.test.ts'],
    css: false,
    maxWorkers: 2,
    testTimeout: 15000,
  },
});
