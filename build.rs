//! Records the git commit ricochet is built from (for `provenance.json`), where there is one.

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
    }
}
