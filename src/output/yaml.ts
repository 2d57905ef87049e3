/** YAML text of a value; the `yaml` package is loaded only when YAML is asked for. */
export async function toYaml(value: unknown): Promise<string> {
  // The package is CommonJS: its chunk in the bundle exports only `default` (no named exports), so use that.
  const { stringify } = (await import('yaml')).default;
  return stringify(value);
}
