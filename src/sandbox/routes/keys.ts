import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for keys. */
export const keys: SandboxModule = {
  routes() {},
};
