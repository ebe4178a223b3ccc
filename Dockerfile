# Tickbook in a container (docs/packaging.md). UNTESTED: written without a Docker daemon at hand.
#   docker build -t tickbook .
#   docker run -p 8080:8080 -v tickbook-data:/data tickbook
# Stage 1 installs every dependency and builds dist/ (npm ci runs `prepare` = build:all);
# stage 2 keeps only production dependencies and the build, and runs as the unprivileged `node`.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off here: `prepare` needs the sources, which are copied next.
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build:all && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data \
    LOG_FORMAT=json
# glibc gives each thread that mallocs its own arena and keeps what it freed there: two arenas
# saved ~30 MB of the idle server's resident memory (docs/packaging.md, "First start and memory").
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json /app/package-lock.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/bin ./bin
COPY --from=build --chown=node:node /app/LICENSE ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# /readyz answers 200 once the store, migrations and exchange are ready (docs/http.md).
HEALTHCHECK --interval=15s --timeout=3s --start-period=120s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# node directly (not npm start): signals reach the server, which writes a final snapshot on SIGTERM.
CMD ["node", "dist/main.js"]
