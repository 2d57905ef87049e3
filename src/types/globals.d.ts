/** Replaced by esbuild (and by vitest's define) with the package version. */
declare const __FORGECTL_VERSION__: string;
