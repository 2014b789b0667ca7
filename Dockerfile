# ismv in a container: Debian bookworm-slim, two stages (build, run), runs as a
# user without privileges. Build and use (docs/ci.md):
#   docker build -t ismv .
#   docker run --rm -v "$PWD:/work" ismv check -f sarif models/*.yaml
# The build stage installs what setup.sh lists for building (one list); the run
# stage the runtime libraries of each library the binary links (tests/dockerfile.sh
# checks both against setup.sh and the binary's NEEDED entries).
FROM debian:bookworm-slim AS build
WORKDIR /src
COPY . .
RUN ./setup.sh --build-deps && rm -rf /var/lib/apt/lists/*
RUN make clean && make -j"$(nproc)" && make install PREFIX=/usr/local DESTDIR=/stage

FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libz3-4 libgsl27 libgslcblas0 libyaml-0-2 libxml2 libgvc6 libcgraph6 libcdt5 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 ismv
COPY --from=build /stage/usr/local/bin/ismv /usr/local/bin/ismv
COPY --from=build /stage/usr/local/share/man/man1/ismv.1 /usr/local/share/man/man1/ismv.1
COPY --from=build /stage/usr/local/share/doc/ismv /usr/local/share/doc/ismv
USER ismv
WORKDIR /work
ENTRYPOINT ["ismv"]
CMD ["--help"]
