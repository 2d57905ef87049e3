'use strict';
// jq-web's module is a promise of jq's instance (a thenable, which an ES module import would try to await): it is
// required from here, when --jq is given. The build bundles it and puts its jq.wasm beside the bundled file.
module.exports = function loadJqWeb() {
  return require('jq-web');
};
