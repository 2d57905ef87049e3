import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for protected tags. */
export const protectedTags: SandboxModule = {
  routes() {},
};
