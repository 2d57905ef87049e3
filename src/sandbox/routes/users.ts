import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for users. */
export const users: SandboxModule = {
  routes() {},
};
