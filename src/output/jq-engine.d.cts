/** jq-web's instance: jq's main() over an in-memory file system (jq 1.7.1, WebAssembly). */
declare function loadJqWeb(): Promise<{ raw(input: string, filter: string, flags?: string[]): string | undefined }>;
export = loadJqWeb;
