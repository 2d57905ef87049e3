import { existsSync, readdirSync } from 'node:fs';

const resources = new URL('../../src/resources/', import.meta.url);

/**
 * The resource folders (src/resources/<resource>/) whose resource.ts declares with defineResource or defineSingleton:
 * every one but the application settings, whose declaration has a form of its own (a table of settings).
 */
export const OWN_FORM = ['settings'];

export function declarationFolders(): string[] {
  return readdirSync(resources)
    .filter((name) => existsSync(new URL(`${name}/resource.ts`, resources)) && !OWN_FORM.includes(name))
    .sort();
}

/** The exports of a resource folder's resource.ts. */
export const declarationModule = async (folder: string): Promise<Record<string, unknown>> =>
  (await import(new URL(`${folder}/resource.ts`, resources).href)) as Record<string, unknown>;
