#!/bin/sh
# Builds the server and the web app (npm run build) only when a file the build reads is newer
# than the last finished build, so `npm start` after the first time starts at once. The stamp
# is taken when a build begins and kept only once it succeeds: a file saved during a build, or
# a build that failed, makes the next start build again.
set -e
stamp=dist/.built
if [ -f "$stamp" ] && [ -f dist/src/main.js ] && [ -f dist/web/index.html ] &&
  [ -z "$(find src web bench test/fakes package.json package-lock.json tsconfig.json tsconfig.build.json -newer "$stamp" -print -quit 2>/dev/null)" ]; then
  exit 0
fi
mkdir -p dist
touch dist/.build-started
npm run -s build
mv dist/.build-started "$stamp"
