import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for plan limits. */
export const planLimits: SandboxModule = {
  routes() {},
};
