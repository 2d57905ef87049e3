import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for integrations. */
export const integrations: SandboxModule = {
  routes() {},
};
