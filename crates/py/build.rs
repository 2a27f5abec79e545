//! Captures the git commit the extension was built from, for run manifests.
//! `AIRQUEUE_GIT_HASH` overrides it (builds from an sdist have no `.git`); without git the
//! hash is "unknown". This script never fails the build.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=AIRQUEUE_GIT_HASH");
    let hash = std::env::var("AIRQUEUE_GIT_HASH")
        .ok()
        .filter(|h| !h.trim().is_empty())
        .or_else(|| git(&["rev-parse", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_owned());
    // Rebuild when HEAD moves. Only existing files are named: a missing one would make
    // cargo rerun this script on every build.
    if let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        let git_dir = Path::new(&git_dir);
        // Branch refs live in the common directory, which in a `git worktree` is not the
        // worktree's own git directory (there only HEAD is).
        let common = git(&["rev-parse", "--path-format=absolute", "--git-common-dir"]);
        let refs = common.as_deref().map_or(git_dir, Path::new);
        let mut watched = vec![git_dir.join("HEAD"), refs.join("packed-refs")];
        if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watched.push(refs.join(head_ref));
        }
        for path in watched.iter().filter(|p| p.exists()) {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    println!("cargo:rustc-env=AIRQUEUE_GIT_HASH={hash}");
}
