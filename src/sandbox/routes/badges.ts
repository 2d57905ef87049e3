import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for badges. */
export const badges: SandboxModule = {
  routes() {},
};
