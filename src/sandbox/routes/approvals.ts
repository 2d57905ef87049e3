import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for approvals. */
export const approvals: SandboxModule = {
  routes() {},
};
