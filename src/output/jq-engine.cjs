'use strict';
// jq-web's module is a promise of jq's instance (a thenable, which an ES module import would try to await): it is
// required from here, when --jq is given. The build bundles it and puts its jq.wasm beside the bundled file.
//
// Its WebAssembly runtime takes console.error for its own messages when it loads ("Aborted()" when jq runs out of
// memory) and prints them to stderr at once; jq.ts says what happened in its own words, so they are dropped here.
// (jq's own messages, "jq: error …", come through jq-web's stderr buffer, not this way.)
module.exports = function loadJqWeb() {
  /* eslint-disable no-console -- jq-web's runtime keeps the console.error it finds when it loads: it finds this one */
  const error = console.error;
  console.error = () => undefined;
  try {
    return require('jq-web');
  } finally {
    console.error = error;
  }
  /* eslint-enable no-console */
};
