# syntax=docker/dockerfile:1
# forgectl's container image: the single executable that `npm run build:sea` writes to dist/sea/, on Debian's slim
# image with the CA certificates and a user that is not root. It keeps Debian's shell: CI jobs run their script
# lines in one. Build it after `npm run build:sea` (BuildKit picks the executable of each platform):
#   docker buildx build --platform linux/amd64,linux/arm64 -t registry.example.com/tools/forgectl:0.1.0 --push .
ARG TARGETARCH

# The executables are named as Node names the architectures (x64, arm64), BuildKit's platforms as Go does (amd64, arm64).
FROM scratch AS executable-amd64
COPY dist/sea/forgectl-linux-x64 /forgectl
FROM scratch AS executable-arm64
COPY dist/sea/forgectl-linux-arm64 /forgectl
FROM executable-${TARGETARCH} AS executable

FROM debian:trixie-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --user-group --create-home --shell /bin/sh forgectl
COPY --from=executable --chmod=0755 /forgectl /usr/local/bin/forgectl
# Node trusts its own CA list; this adds the system's, and so any CA an image built on this one adds with update-ca-certificates.
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
USER forgectl
WORKDIR /home/forgectl
CMD ["forgectl", "--help"]
