# phalanx: a static binary on distroless, running as non-root.
#   make image                      (stamps the version from git: see the Makefile; where no
#                                    container runtime runs, hack/image.sh builds the same in Go)
#   docker build --build-arg VERSION=v0.1.0 --build-arg GIT_COMMIT=$(git rev-parse HEAD) \
#     -t ghcr.io/phalanx-dev/phalanx:v0.1.0 .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG GIT_COMMIT=""
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags="-s -w -X github.com/phalanx-dev/phalanx/pkg/version.gitVersion=${VERSION} -X github.com/phalanx-dev/phalanx/pkg/version.gitCommit=${GIT_COMMIT}" \
    -o /out/phalanx ./cmd/phalanx

FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev
ARG GIT_COMMIT=""
LABEL org.opencontainers.image.source="https://github.com/phalanx-dev/phalanx" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${GIT_COMMIT}"
COPY --from=build /out/phalanx /phalanx
USER 65532:65532
EXPOSE 10251
ENTRYPOINT ["/phalanx"]
CMD ["run"]
