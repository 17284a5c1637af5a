# phalanx: a static binary on distroless, running as non-root.
#   docker build -t ghcr.io/phalanx-dev/phalanx:dev .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/phalanx ./cmd/phalanx

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/phalanx /phalanx
USER 65532:65532
EXPOSE 10251
ENTRYPOINT ["/phalanx"]
CMD ["run"]
