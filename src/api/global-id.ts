/**
 * The service's global IDs, how its GraphQL API names records: `gid://gitlab/<Model>/<id>` (gid://gitlab/User/1,
 * gid://gitlab/Ci::Runner/7). The REST API's numeric id is the last part.
 */

export type GlobalModel = 'User' | 'Project' | 'Group' | 'Ci::Runner';

export const globalId = (model: GlobalModel, id: number): string => `gid://gitlab/${model}/${id}`;

/** The numeric id a global ID gives a record of `model`; undefined for anything else. */
export function idOfGlobalId(model: GlobalModel, value: string): number | undefined {
  const prefix = `gid://gitlab/${model}/`;
  if (!value.startsWith(prefix)) return undefined;
  const id = value.slice(prefix.length);
  return /^[1-9]\d{0,15}$/.test(id) ? Number(id) : undefined;
}
