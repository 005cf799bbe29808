#!/usr/bin/env node
// Runs mcp-sqlite-memory: the server is a Go binary, carried by one npm
// package per platform (mcp-sqlite-memory-<platform>-<arch>), of which npm
// installed the one that matches this machine as an optional dependency.
// This launcher finds it and runs it with the same arguments, stdin, stdout
// and stderr, passes on the signals that stop it and exits as it exits. It
// writes nothing to stdout: over stdio, stdout carries only the server's
// JSON-RPC.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

const name = "mcp-sqlite-memory";
const pkg = `${name}-${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? ".exe" : "";

function fail(message) {
  process.stderr.write(`${name}: ${message}\n`);
  process.exit(1);
}

const built = Object.keys(require("../package.json").optionalDependencies || {});
if (!built.includes(pkg)) {
  fail(`there is no build for ${process.platform} ${process.arch}; builds exist for: ${built.join(", ")}`);
}
let dir;
try {
  dir = path.dirname(require.resolve(`${pkg}/package.json`));
} catch {
  fail(`the package ${pkg}, which carries the server for this machine, is not installed: ` +
    "npm skips it when optional dependencies are turned off (--omit=optional, --no-optional); install again without that");
}

// The handlers come first: a signal that arrived between the spawn and
// them would kill this process and leave the server running.
const signals = ["SIGINT", "SIGTERM", "SIGHUP"];
let child;
for (const signal of signals) {
  process.on(signal, () => child.kill(signal));
}
child = spawn(path.join(dir, "bin", name + exe), process.argv.slice(2), { stdio: "inherit", windowsHide: true });
child.on("error", (err) => fail(`cannot run ${child.spawnfile}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so that whoever started us sees it.
    for (const s of signals) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code);
});
