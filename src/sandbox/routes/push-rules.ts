import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for push rules. */
export const pushRules: SandboxModule = {
  routes() {},
};
