// jq-web: jq 1.7.1 compiled to WebAssembly. The module is a promise of the instance; raw() runs jq's main() on
// the input text as `echo INPUT | jq FLAGS FILTER` would, returning stdout or throwing with exitCode and stderr.
declare module 'jq-web' {
  const instance: Promise<{ raw(input: string, filter: string, flags?: string[]): string | undefined }>;
  export default instance;
}
