import { createHash } from 'node:crypto';
import type { TokenRecord } from './values.js';
import { accessTokens } from './resource.js';
import { f } from '../../api/fields.js';
import { accessLevelName, pluralNoun } from '../../parse.js';
import type { Change, Level, Owner } from '../../desired/model.js';
import { specOf, type Section } from '../../desired/section.js';

/**
 * Access tokens are audited, never created or rotated by apply: a policy (allowed scopes, maximum lifetime, highest
 * role) that every active token of a project or group must keep. A token that breaks it is drift, reported by plan
 * and apply (exit 9), and left for its owner to rotate or revoke.
 */

export interface TokenPolicy {
  allowed_scopes?: string[];
  max_lifetime_days?: number;
  max_access_level?: number;
}

const DAY_MS = 86_400_000;

/** What is wrong with a token under a policy, in words; empty when nothing. */
export function policyViolations(token: TokenRecord, policy: TokenPolicy): string[] {
  const problems: string[] = [];
  const extra = policy.allowed_scopes ? token.scopes.filter((scope) => !policy.allowed_scopes!.includes(scope)) : [];
  if (extra.length) problems.push(`${pluralNoun(extra.length, 'scope')} ${extra.join(', ')} not allowed`);
  if (policy.max_lifetime_days !== undefined) {
    if (!token.expires_at) problems.push('never expires');
    else {
      const days = Math.ceil((Date.parse(token.expires_at) - Date.parse(token.created_at.slice(0, 10))) / DAY_MS);
      if (days > policy.max_lifetime_days) problems.push(`lives ${days} days (until ${token.expires_at.slice(0, 10)}), more than ${policy.max_lifetime_days}`);
    }
  }
  if (policy.max_access_level !== undefined && (token.access_level ?? 0) > policy.max_access_level) {
    problems.push(`role ${accessLevelName(token.access_level)} is above ${accessLevelName(policy.max_access_level)}`);
  }
  return problems;
}

function tokensSection(level: Exclude<Level, 'instance'>): Section {
  return {
    key: 'access_tokens',
    noun: 'access token',
    level,
    shape: 'one',
    help: `A policy every active ${level} access token must keep (audited: a token that breaks it is drift; apply never creates, rotates or revokes tokens).`,
    fields: {
      allowed_scopes: { schema: { type: 'array', items: { type: 'string' }, uniqueItems: true }, help: 'the scopes a token may have' },
      max_lifetime_days: { schema: { type: 'integer', minimum: 1 }, help: 'the longest a token may live, from creation to expiry' },
      max_access_level: specOf(f.accessLevel(undefined, { help: 'the highest role a token may have' })),
    },
    auditOnly: true,
    exported: false,
    async read() {
      return [];
    },
    async plan(io, owner: Owner, desired) {
      const policy = desired as TokenPolicy;
      const changes: Change[] = [];
      for await (const token of io.api.list<TokenRecord>(accessTokens.parents[level].routes.list, { [level]: owner.path, state: 'active' }, { all: true })) {
        if (token.revoked || token.active === false) continue;
        const problems = policyViolations(token, policy);
        if (!problems.length) continue;
        changes.push({
          owner,
          section: 'access_tokens',
          key: `"${token.name}" (id ${token.id})`,
          action: 'violation',
          fields: [],
          note: problems.join('; '),
          digest: createHash('sha256').update(JSON.stringify([token.scopes, token.expires_at, token.access_level])).digest('hex'),
        });
      }
      return changes;
    },
  };
}

export const projectTokensSection = tokensSection('project');
export const groupTokensSection = tokensSection('group');
