import { re2Problem } from '../../api/fields.js';
import { pushRule, PUSH_RULE_REGEX_FIELDS } from './resource.js';
import { singletonModule } from '../../sandbox/singleton.js';
import { errors } from '../../sandbox/http.js';
import type { PushRule } from '../../sandbox/model.js';

/** The push rule of a project, served from its declaration; the model's validation is the service's own. */
export const pushRules = singletonModule<PushRule>(pushRule, {
  notFound: 'Push Rule',
  exists: 'Project push rule exists',
  validate(rule, req) {
    const problems: Record<string, string[]> = {};
    for (const field of PUSH_RULE_REGEX_FIELDS) {
      const text = rule[field] ?? '';
      const problem = text ? re2Problem(text) : undefined;
      if (problem && req.input[field] !== undefined) problems[field] = [`not valid RE2 syntax: ${problem}`];
      rule[field] = text || null;
    }
    if (rule.max_file_size < 0) problems.max_file_size = ['must be greater than or equal to 0'];
    if (Object.keys(problems).length) throw errors.validation(problems);
  },
});
