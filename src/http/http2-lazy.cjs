// Stands in for node:http2 inside undici's HTTP/2 client (see scripts/build.mjs). forgectl never enables HTTP/2,
// but undici loads node:http2 — and tls and crypto with it — at start-up to read a few constants. These are the
// constants it reads; the real module is loaded only if a session is ever opened.
'use strict';
module.exports = {
  constants: {
    HTTP2_HEADER_AUTHORITY: ':authority',
    HTTP2_HEADER_METHOD: ':method',
    HTTP2_HEADER_PATH: ':path',
    HTTP2_HEADER_SCHEME: ':scheme',
    HTTP2_HEADER_CONTENT_LENGTH: 'content-length',
    HTTP2_HEADER_EXPECT: 'expect',
    HTTP2_HEADER_STATUS: ':status',
    HTTP2_HEADER_PROTOCOL: ':protocol',
    NGHTTP2_REFUSED_STREAM: 7,
    NGHTTP2_CANCEL: 8,
  },
  connect: (...args) => require('node:http2').connect(...args),
};
