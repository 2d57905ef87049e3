import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for draft notes. */
export const draftNotes: SandboxModule = {
  routes() {},
};
