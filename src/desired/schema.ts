import type { FieldSpec, Level } from './model.js';
import type { Section } from './section.js';
import { SECTIONS } from './sections/index.js';

/**
 * The JSON Schema of a desired-state file, built from the sections (and so from the resource declarations): what
 * `validate` checks offline, and what editors use to complete and check the file (it ships as
 * schema/desired-state.schema.json; `forgectl validate --schema` prints it).
 */

type Schema = Record<string, unknown>;

const SECRET_REF = { $ref: '#/definitions/secret' };

function fieldSchema(spec: FieldSpec): Schema {
  const schema = spec.secret && !('additionalProperties' in spec.schema) && !('$ref' in spec.schema) ? SECRET_REF : spec.schema;
  return spec.help ? { ...schema, description: spec.help } : { ...schema };
}

function objectSchema(section: Section, options: { required?: string[] } = {}): Schema {
  const schema: Schema = {
    type: 'object',
    properties: Object.fromEntries(Object.entries(section.fields).map(([name, spec]) => [name, fieldSchema(spec)])),
    additionalProperties: section.other ? fieldSchema(section.other) : false,
  };
  if (options.required?.length) schema.required = options.required;
  return schema;
}

export function sectionSchema(section: Section): Schema {
  const tier = section.tier ? ` Needs ${section.tier[0].toUpperCase()}${section.tier.slice(1)}.` : '';
  const description = section.help + tier;
  if (section.shape === 'many') {
    return { type: 'array', description, items: objectSchema(section, { required: section.required }) };
  }
  const record = objectSchema(section);
  const entry = section.nullable ? { anyOf: [record, { type: 'null' }] } : record;
  if (section.shape === 'one') return { ...entry, description };
  return {
    type: 'object',
    description,
    ...(section.names ? { propertyNames: { enum: [...section.names] } } : {}),
    additionalProperties: entry,
  };
}

function scopeSchema(level: Level): Schema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      inherit: { type: 'boolean', description: 'false: this scope does not take what less specific scopes declare' },
      ...Object.fromEntries(SECTIONS[level].map((section) => [section.key, sectionSchema(section)])),
    },
  };
}

export function desiredStateSchema(): Schema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'forgectl desired state',
    description: 'The configuration forgectl plan compares with an instance and forgectl apply makes it have.',
    type: 'object',
    additionalProperties: false,
    properties: {
      version: { const: 1, description: 'the version of this file format' },
      prune: {
        enum: ['managed', 'all'],
        description: 'what apply --prune may delete: managed (default) only objects forgectl created (marked [forgectl]); all every object of a declared section that the file does not list',
      },
      target: {
        anyOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 }],
        description: 'the projects "*" means when plan is given no --target: group/** (a group and its subgroups) or group/project',
      },
      projects: {
        type: 'object',
        description: 'project scopes: "*" (every project of the target), group/** (a group and its subgroups), group/project; deeper scopes override (records merge, lists replace)',
        additionalProperties: { $ref: '#/definitions/projectScope' },
      },
      groups: {
        type: 'object',
        description: 'group scopes: "*" (every group of the target), group/** (a group and its subgroups), group',
        additionalProperties: { $ref: '#/definitions/groupScope' },
      },
      instance: { $ref: '#/definitions/instance' },
    },
    definitions: {
      secret: {
        type: 'object',
        description: 'where a secret is: an environment variable, a file, or the output of a command; never the secret itself',
        properties: {
          env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
          file: { type: 'string', minLength: 1 },
          command: { type: 'string', minLength: 1 },
        },
        additionalProperties: false,
        minProperties: 1,
        maxProperties: 1,
      },
      projectScope: scopeSchema('project'),
      groupScope: scopeSchema('group'),
      instance: {
        type: 'object',
        additionalProperties: false,
        properties: Object.fromEntries(SECTIONS.instance.map((section) => [section.key, sectionSchema(section)])),
      },
    },
  };
}
