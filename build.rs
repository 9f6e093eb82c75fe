//! Records the git commit ricochet is built from and whether its tracked files had
//! uncommitted changes (for `provenance.json`), where there is a git tree.

fn main() {
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs");
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok());
    if let Some(commit) = commit {
        println!("cargo:rustc-env=RICOCHET_COMMIT={}", commit.trim());
        // (Run again when a source changes, so that the flag follows the edits.)
        for tree in ["src", "shaders", "Cargo.toml", ".git/index"] {
            println!("cargo:rerun-if-changed={tree}");
        }
        let dirty = std::process::Command::new("git")
            .args(["status", "--porcelain", "--untracked-files=no"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| !o.stdout.is_empty());
        if let Some(dirty) = dirty {
            println!("cargo:rustc-env=RICOCHET_DIRTY={dirty}");
        }
    }
}
