//! Records the git commit ricochet is built from and whether its tracked files had
//! uncommitted changes (for `provenance.json`), where there is a git tree.

/// What `git args` prints, where git runs and succeeds.
fn git(args: &[&str]) -> Option<String> {
    std::process::Command::new("git")
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
}

fn main() {
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs");
    if let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) {
        println!("cargo:rustc-env=RICOCHET_COMMIT={}", commit.trim());
        // (Run again when a source changes, so that the flag follows the edits.)
        for tree in ["src", "shaders", "Cargo.toml", ".git/index"] {
            println!("cargo:rerun-if-changed={tree}");
        }
        if let Some(changes) = git(&["status", "--porcelain", "--untracked-files=no"]) {
            println!("cargo:rustc-env=RICOCHET_DIRTY={}", !changes.is_empty());
        }
    }
}
