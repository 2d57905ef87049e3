import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for tokens. */
export const tokens: SandboxModule = {
  routes() {},
};
