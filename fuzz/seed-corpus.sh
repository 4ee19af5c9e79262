#!/usr/bin/env bash
# Copies the checked-in seeds (fuzz/seeds/TARGET) into the working corpora (fuzz/corpus/TARGET,
# git-ignored), where `cargo fuzz run` reads and grows them.
set -euo pipefail
cd "$(dirname "$0")"
for target in uci_command casebase_load pgn_build; do
    mkdir -p "corpus/$target"
    cp -n "seeds/$target"/* "corpus/$target/"
done
