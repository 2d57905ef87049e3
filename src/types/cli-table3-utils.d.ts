// cli-table3's own width function (string-width: wide characters count two columns, colour codes none), so the
// widths forgectl computes agree with the ones cli-table3 pads and truncates to.
declare module 'cli-table3/src/utils.js' {
  const utils: { strlen(text: string): number };
  export default utils;
}
