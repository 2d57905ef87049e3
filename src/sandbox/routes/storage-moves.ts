import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for storage moves. */
export const storageMoves: SandboxModule = {
  routes() {},
};
