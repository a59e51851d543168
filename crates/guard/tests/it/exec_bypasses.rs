//! Red-team findings, pinned: programs that run commands (awk, sed e, vim, make, tar, ...) and interpreter one-liners.

use crate::support::{assert_allowed, decide};
use pawl_guard::RuleId;

#[track_caller]
fn denied_as(command: &str, rule: RuleId) {
    let d = decide(command);
    assert!(d.is_deny(), "expected deny for {command:?}, got {d:?}");
    assert_eq!(d.rule, Some(rule), "wrong rule for {command:?}: {d:?}");
}

#[track_caller]
fn denied(command: &str) {
    let d = decide(command);
    assert!(d.is_deny(), "expected deny for {command:?}, got {d:?}");
}

#[test]
fn b15_awk_runs_commands() {
    // Literal commands are handed to the walker and judged as shell.
    for c in [
        "awk 'BEGIN{system(\"rm -rf src\")}'",
        "gawk 'BEGIN { system(\"rm -rf \" \"src\") }'",
        "mawk 'BEGIN{print | \"rm -rf src\"}'",
        "nawk 'BEGIN{ while ((\"rm -rf src\" | getline l) > 0) print l }'",
        "busybox awk 'BEGIN{system(\"rm -rf src\")}'",
        "awk -e 'BEGIN{system(\"rm -rf src\")}'",
        "gawk --source='BEGIN{system(\"rm -rf src\")}'",
        "gawk --sou 'BEGIN{system(\"rm -rf src\")}'",
        "awk 'BEGIN{printf \"x\" |& \"rm -rf src\"}'",
    ] {
        denied_as(c, RuleId::RecursiveDelete);
    }
    denied_as("awk 'BEGIN{system(\"git push\")}'", RuleId::GitPush);
    // Commands built at run time fail closed.
    for c in [
        "awk '{system($0)}' cmds.txt",
        "awk 'BEGIN{c=\"rm -rf src\"; system(c)}'",
        "awk '{print | $1}' f",
        "awk '{ $1 | getline x }' f",
        "awk '{ \"cat \" $1 | getline x }' f",
        "awk -f /dev/stdin <<< 'BEGIN{system(\"rm -rf src\")}'",
        "echo 'BEGIN{system(\"x\")}' | awk -f -",
        "gawk -l ordchr 'BEGIN{print 1}'",
        "gawk '@load \"filefuncs\"; BEGIN{print 1}'",
        "awk \"$PROG\" f",
    ] {
        denied(c);
    }
    // Writes to files: protected paths, clobbered tracked files, dynamic names.
    denied_as(
        "awk 'BEGIN{print \"X=1\" > \".env\"}'",
        RuleId::ProtectedPath,
    );
    denied_as("awk 'BEGIN{printf \"\" > \"README.md\"}'", RuleId::Clobber);
    denied_as("awk '{print > $1\".txt\"}' f", RuleId::NotStatic);
    denied_as("gawk -i inplace '{print}' .env", RuleId::ProtectedPath);
    // Reading and printing stays allowed.
    for c in [
        "awk '{print $1}' f",
        "awk '/reset --hard/ {print NR}' docs/guide.md",
        "awk -F: '{print $1 > \"/tmp/users.txt\"}' /etc/passwd",
        "awk '$3 > 5 {print $1}' data.txt",
        "awk '{ if ($1 > 2) print $2 }' data.txt",
        "awk '/a|b/ {n++} END {print n}' f",
        "awk '{ s += $1 } END { print s / NR }' f",
        "awk 'BEGIN{system(\"date\")}'",
        "awk '{print $1 >> \"/tmp/out\"}' f",
        "awk '{print $0 > \"/dev/stderr\"}' f",
        "awk -f tools/report.awk data.txt",
        "awk 'BEGIN { while ((\"git log -1\" | getline l) > 0) print l }'",
        "awk '{print}' src/main.rs | sort | uniq -c",
        "awk -v n=3 'NR<=n' README.md",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b16_sed_runs_and_writes() {
    denied_as("sed -n '1e rm -rf src' README.md", RuleId::RecursiveDelete);
    denied_as("sed '1e git push' README.md", RuleId::GitPush);
    denied_as(
        "sed -e '$!N' -e '1e rm -rf src' README.md",
        RuleId::RecursiveDelete,
    );
    denied_as("gsed '1e rm -rf src' README.md", RuleId::RecursiveDelete);
    for c in [
        "sed 's/.*/rm -rf src/e' README.md",
        "sed 's/x/y/ge' README.md",
        "sed 'e' cmds.txt",
        "sed --expression='s/.*/x/e' README.md",
        "sed --expr 's/.*/x/e' README.md",
        "sed -f /dev/stdin README.md <<< 's/.*/rm -rf src/e'",
        "sed \"$S\" README.md",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    denied_as("sed -n 'w .env' README.md", RuleId::ProtectedPath);
    denied_as(
        "sed -n 's/a/b/w Dockerfile' README.md",
        RuleId::ProtectedPath,
    );
    denied_as("sed -n 'W src/main.rs' README.md", RuleId::Clobber);
    denied_as("sed -n '/x/w pawl.toml' README.md", RuleId::ProtectedPath);
    for c in [
        "sed -n 's/x/y/p' README.md",
        "sed -i 's/a/b/' src/main.rs",
        "sed -n '10,20p' src/lib.rs",
        "sed '/^$/d' README.md",
        "sed -E 's/(foo|bar)/baz/g; s/x/y/' README.md",
        "sed -n '/start/,/end/{p}' docs/guide.md",
        "sed -i.bak -e 's/a/b/' src/main.rs",
        "sed 's/a/b/w /dev/stdout' README.md",
        "sed -n 'w /tmp/copy.txt' README.md",
        "sed '$a\\\\nnew line' README.md",
        "sed --sandbox 's/x/y/' README.md",
        "sed ':a;N;$!ba;s/\\n/ /g' README.md",
        "git log -1 | sed 's/^/> /'",
    ] {
        assert_allowed(c);
    }
    // The file rules still judge sed -i.
    denied_as("sed -i 's/a/b/' .env", RuleId::ProtectedPath);
    denied_as("gsed -i 's/a/b/' .env", RuleId::ProtectedPath);
}

#[test]
fn b17_editors_with_commands() {
    for c in [
        "vim -es -c '!rm -rf src' -c q",
        "vim -c ':!git push' -c q README.md",
        "vi +'!rm -rf src' README.md",
        "nvim --headless --cmd 'call system(\"rm -rf src\")' +q",
        "ex -c 'w! .env' README.md",
        "view -S /tmp/x.vim README.md",
        "vim -s keys.txt README.md",
        "ex README.md <<< '!rm -rf src'",
        "vim -es README.md < cmds.vim",
        "printf '%s\\n' '%d' 'wq' | ex -s src/main.rs",
        "emacs --batch --eval '(shell-command \"rm -rf src\")'",
        "emacs -batch -l /tmp/x.el",
        "emacs --ev '(delete-directory \"src\" t)'",
        "emacsclient -e '(shell-command \"git push\")'",
        "gdb -batch -ex 'shell rm -rf src'",
        "gdb -nx -x /tmp/cmds",
        "lldb -o 'platform shell rm -rf src'",
        "ed -s README.md <<< $'!rm -rf src\\nq'",
        "printf 'w .env\\n' | ed README.md",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    denied_as("ed -s .env <<< $',s/a/b/\\nw'", RuleId::ProtectedPath);
    for c in [
        "vim README.md",
        "vim +10 src/main.rs",
        "vim +/TODO src/main.rs",
        "vi -R README.md",
        "emacs README.md",
        "ed -s notes.txt <<< $',s/a/b/\\nw'",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b18_make_eval() {
    for c in [
        "make --eval=$'x:\\n\\trm -rf src' x",
        "make --eval $'x:\\n\\trm -rf src' x",
        "make --ev=$'x:\\n\\trm -rf src' x",
        "make -E $'x:\\n\\trm -rf src' x",
        "make -sE $'x:\\n\\trm -rf src' x",
        "make -f - <<< $'x:\\n\\trm -rf src'",
        "make -f /dev/stdin x <<< $'x:\\n\\trm -rf src'",
        "echo x | make -f - x",
        "make -f <(echo x) x",
        "make SHELL='rm -rf src' test",
        "make .SHELLFLAGS='-c rm' test",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    for c in [
        "make test",
        "make -j4 build",
        "make -C crates/guard test",
        "make -f Makefile.ci lint",
        "make CC=clang test",
        "make SHELL=/bin/bash test",
        "gmake -k check",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b19_tar_runs_programs() {
    for c in [
        "tar --checkpoint=1 --checkpoint-action=exec='rm -rf src' -cf /tmp/cp.tar README.md",
        "tar --checkpoint=1 --checkpoint-action 'exec=rm -rf src' -cf /tmp/cp.tar README.md",
        "tar --checkpoint=1 --checkpoint-act=exec='rm -rf src' -cf /tmp/cp.tar README.md",
        "tar -xf /tmp/a.tar --to-command='rm -rf src'",
        "tar -xf /tmp/a.tar --to-c 'rm -rf src'",
        "tar -I 'rm -rf src' -cf /tmp/a.tar README.md",
        "tar -cf /tmp/a.tar -I'rm -rf src' README.md",
        "tar -cvI 'rm -rf src' -f /tmp/a.tar README.md",
        "tar cIf 'rm -rf src' /tmp/a.tar README.md",
        "tar --use-compress-program='rm -rf src' -cf /tmp/a.tar README.md",
        "tar --use='rm -rf src' -cf /tmp/a.tar README.md",
        "tar -cf /tmp/a.tar -F 'rm -rf src' -M README.md",
        "tar -cf /tmp/a.tar --info-script='rm -rf src' -M README.md",
        "tar -cf /tmp/a.tar --new-volume-script='rm -rf src' -M README.md",
        "tar -cf host:/tmp/a.tar --rsh-command='rm -rf src' README.md",
        "tar -cf host:/tmp/a.tar --rmt-command='rm -rf src' README.md",
        "zip -q /tmp/z.zip README.md -T -TT 'rm -rf src #'",
        "zip -q /tmp/z.zip README.md -T -TT='rm -rf src #'",
        "zip -q /tmp/z.zip README.md -T --unzip-command 'rm -rf src #'",
        "zip -q /tmp/z.zip README.md -T --unzip-c='rm -rf src #'",
    ] {
        denied_as(c, RuleId::RecursiveDelete);
    }
    denied_as(
        "tar -xf /tmp/a.tar --to-command=\"$CMD\"",
        RuleId::NotStatic,
    );
    for c in [
        "tar -czf /tmp/out.tgz src",
        "tar -I zstd -cf /tmp/out.tar.zst src",
        "tar --use-compress-program='zstd -19' -cf /tmp/out.tar.zst src",
        "tar --checkpoint=1000 --checkpoint-action=dot -cf /tmp/a.tar src",
        "tar tvf /tmp/a.tar",
        "zip -r /tmp/src.zip src",
        "zip -T /tmp/src.zip",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b21_sqlite_dot_commands() {
    denied_as(
        "sqlite3 :memory: '.shell rm -rf src'",
        RuleId::RecursiveDelete,
    );
    denied_as("sqlite3 :memory: '.system git push'", RuleId::GitPush);
    denied_as("sqlite3 :memory: '.sh rm -rf src'", RuleId::RecursiveDelete);
    denied_as(
        "sqlite3 -cmd '.shell rm -rf src' :memory: 'select 1'",
        RuleId::RecursiveDelete,
    );
    denied_as(
        "sqlite3 :memory: <<< '.shell rm -rf src'",
        RuleId::RecursiveDelete,
    );
    denied_as(
        "sqlite3 :memory: '.output |rm -rf src' 'select 1'",
        RuleId::RecursiveDelete,
    );
    denied_as(
        "sqlite3 :memory: \".read '|rm -rf src'\"",
        RuleId::RecursiveDelete,
    );
    denied_as(
        "sqlite3 :memory: '.output README.md' 'select 1'",
        RuleId::Clobber,
    );
    denied_as(
        "sqlite3 :memory: '.once .env' 'select 1'",
        RuleId::ProtectedPath,
    );
    denied_as(
        "sqlite3 :memory: \"vacuum into '.env'\"",
        RuleId::ProtectedPath,
    );
    denied_as("sqlite3 secrets/app.db 'select 1'", RuleId::ProtectedPath);
    for c in [
        "sqlite3 :memory: \"select writefile('README.md', 'x')\"",
        "sqlite3 :memory: \"select load_extension('/tmp/x.so')\"",
        "sqlite3 :memory: '.load /tmp/x.so'",
        "echo '.shell rm -rf src' | sqlite3 :memory:",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    for c in [
        "sqlite3 app.db 'select count(*) from users'",
        "sqlite3 app.db .tables",
        "sqlite3 app.db < schema.sql",
        "sqlite3 -safe :memory: '.shell rm -rf src'",
        "sqlite3 :memory: '.output /tmp/out.csv' 'select 1'",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b22_ssh_family() {
    for c in [
        "ssh -o ProxyCommand='rm -rf src' x",
        "ssh -oProxyCommand='rm -rf src' x",
        "ssh -o 'proxycommand rm -rf src' x",
        "ssh -o PermitLocalCommand=yes -o LocalCommand='rm -rf src' x",
        "scp -o ProxyCommand='rm -rf src' a x:b",
        "sftp -o ProxyCommand='rm -rf src' x",
        "scp -S 'rm -rf src' a x:b",
        "rsync -e 'rm -rf src' a x:b",
        "rsync -avze 'rm -rf src' a x:b",
        "rsync --rsh='rm -rf src' a x:b",
        "sftp -b - x <<< '!rm -rf src'",
    ] {
        denied_as(c, RuleId::RecursiveDelete);
    }
    for c in [
        "ssh x 'rm -rf src'",
        "ssh x git push",
        "ssh -p 2222 -i ~/.ssh/id host ls",
        "ssh -o RemoteCommand='rm -rf /' x",
        "rsync --rsync-path='rm -rf src' a x:b",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    denied_as("scp x:secret .env", RuleId::ProtectedPath);
    denied_as("scp x:README.md README.md", RuleId::Clobber);
    for c in [
        "ssh -G x",
        "ssh -o ProxyCommand='nc proxy 22' x",
        "ssh -o ProxyCommand=none x",
        "scp README.md host:/tmp/",
        "scp host:/var/log/app.log /tmp/app.log",
        "rsync -av -e 'ssh -p 2222' src/ host:/srv/app/",
        "rsync -av target/ /tmp/backup/",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b23_tcl_and_other_interpreters() {
    for c in [
        "tclsh <<< 'exec rm -rf src'",
        "echo 'exec rm -rf src' | tclsh",
        "expect -c 'spawn rm -rf src'",
        "wish <<< 'file delete -force src'",
        "lua -e 'os.execute(\"rm -rf \" .. x)'",
        "luajit -e 'load(\"os.exe\" .. \"cute(1)\")()'",
        "Rscript -e 'eval(parse(text=x))'",
        "julia -e 'eval(Meta.parse(x))'",
        "julia -e 'run(`rm -rf $x`)'",
        "osascript -e 'do shell script x'",
        "osascript -e 'tell application \"Finder\" to delete file \"a\"'",
        "pwsh -c 'Remove-Item -Recurse src'",
        "pwsh -Command 'iex $x'",
        "pwsh -EncodedCommand cgBtACAALQByAGYAIABzAHIAYwA=",
        "powershell -enc cgBtAA==",
        "php -B 'system($x);'",
        "php -R 'unlink($argn);'",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    denied_as(
        "lua -e 'os.execute(\"rm -rf src\")'",
        RuleId::RecursiveDelete,
    );
    denied_as("Rscript -e 'system(\"git push\")'", RuleId::GitPush);
    denied_as("julia -e 'run(`git push`)'", RuleId::GitPush);
    denied_as(
        "osascript -e 'do shell script \"git push\"'",
        RuleId::GitPush,
    );
    denied_as("pwsh -c 'git push origin HEAD'", RuleId::GitPush);
    denied_as("php -r 'system(\"git push\");'", RuleId::GitPush);
    for c in [
        "tclsh <<< 'puts hello'",
        "lua -e 'print(1+1)'",
        "Rscript -e 'print(sessionInfo())'",
        "julia -e 'println(1+1)'",
        "osascript -e 'display notification \"done\"'",
        "pwsh -c 'Get-ChildItem'",
        "php -r 'echo PHP_VERSION;'",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b73_b78_spawns_are_resolved_per_call() {
    for c in [
        "python3 -c 'import subprocess as s; m=\"x\"; s.run([\"git\",\"push\"])'",
        "python3 -c 'import os; os.execvp(\"git\", [\"git\",\"push\"])'",
        "python3 -c 'import subprocess as s; s.run([\"git\",\"pu\"+\"sh\"])'",
        "node -e 'require(\"child_process\").execSync(\"git pu\"+\"sh\")'",
        "perl -e 'system\"git push\"'",
        "perl -e '$x=\"y\"; exec \"git\",\"push\"'",
        "perl -e 'exec qw(git push)'",
        "perl -e 'print `git push`'",
        "perl -e 'print qx{git push}'",
        "ruby -e 'system(\"git\", \"push\")'",
        "ruby -e 'puts %x(git push)'",
        "ruby -e 'require \"open3\"; Open3.capture2(\"git\", \"push\")'",
        "python3 -c 'import subprocess; subprocess.run([\"git\",\"push\"])'",
        "node -e 'require(\"child_process\").spawnSync(\"git\", [\"push\"], {stdio: \"inherit\"})'",
        "bun -e 'Bun.spawnSync([\"git\", \"push\"])'",
        "node -e 'const {execFileSync} = require(\"child_process\"); execFileSync(\"git\", [\"push\"])'",
    ] {
        denied_as(c, RuleId::GitPush);
    }
    for c in [
        // Dispatch by name or through values the guard cannot see.
        "node -e 'require(\"child\"+\"_process\")[\"exec\"+\"Sync\"](\"git pu\"+\"sh\")'",
        "node -e 'const cp=require(\"child_process\"); cp[m](\"git push\")'",
        "node -e 'const m=\"child_process\"; require(m).execSync(\"git push\")'",
        "ruby -e 'Kernel.send(:system, \"git\", \"push\")'",
        "ruby -e 'method(:system).call(\"git push\")'",
        "python3 -c 'from subprocess import run as r; r([\"git\",\"push\"])'",
        "python3 -c 'import os; f = os.system; f(\"git push\")'",
        "python3 -c 'import os; list(map(os.system, [\"git push\"]))'",
        "python3 -c 'import subprocess,sys; subprocess.run(sys.argv[1:])' git push",
        "python3 -c 'import os; os.system(\"git \" + input())'",
        "python3 -c 'import os; os.system(f\"git {x}\")'",
        "ruby -e 'system(\"git #{x}\")'",
        "perl -e 'system \"git $x\"'",
        "node -e 'require(\"child_process\").execSync(`git ${x}`)'",
        "php -r 'array_map(\"system\", [\"git push\"]);'",
        "php -r '$f=\"system\"; $f(\"git push\");'",
    ] {
        denied(c);
    }
}

#[test]
fn b106_b118_deletes_through_obfuscation() {
    for c in [
        "python3 -c 'import shutil; getattr(shutil,\"rm\"+\"tree\")(\"src\")'",
        "python3 -c 'import shutil; shutil.ｒｍｔｒｅｅ(\"src\")'",
        "python3 -c '__import__(\"shutil\").rmtree(\"src\")'",
        "python3 -c 'import importlib; importlib.import_module(\"shutil\").rmtree(\"src\")'",
        "python3 -c 'exec(\"import shutil\")'",
        "python3 -c 'eval(compile(\"1\", \"x\", \"eval\"))'",
        "python3 -m timeit -n1 -r1 'import shutil; shutil.rmtree(\"src\")'",
        "python3 -m timeit -s 'import os' 'os.remove(\"README.md\")'",
        "printf 'import shutil\\n' | python3 -m code",
        "node -pe 'require(\"fs\").rmSync(\"src\",{recursive:true})'",
        "node -ep 'require(\"fs\").rmSync(\"src\",{recursive:true})'",
        "node --import 'data:text/javascript,import fs from \"fs\"; fs.rmSync(\"src\",{recursive:true})' -e 0",
        "node --import='data:text/javascript;base64,aW1wb3J0' -e 0",
        "perl '-MFile::Path;rmtree(q(src))' -e 1",
        "perl -MFile::Path=rmtree -e 'rmtree(\"src\")'",
        "perl -e 'unlink<src/*.rs>'",
        "perl -e 'unlink\t\"README.md\"'",
        "node -e 'require(\"fs\").rm(\"src\",{recursive:true},()=>{})'",
        "node -e 'const {rm}=require(\"fs/promises\"); rm(\"src\",{recursive:true})'",
        "node -e 'require(\"fs\")[\"rm\"+\"Sync\"](\"src\",{recursive:true})'",
        "ruby -rfileutils -e 'FileUtils::rm_r \"src\"'",
        "ruby -e 'File.send(:delete, \"README.md\")'",
        "php -r 'array_map(\"unlink\", glob(\"src/*\"));'",
        "Rscript -e 'file.remove(\"README.md\")'",
        "Rscript -e 'unlink(\"src\", recursive=TRUE)'",
        "julia -e 'rm(\"src\", recursive=true)'",
        "lua -e 'os.remove(\"README.md\")'",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    // A shell string with a substitution inside the interpreter is walked as
    // shell, not leniently: the name `$(printf rm)` is not statically known.
    denied("python3 -c 'import os; os.system(\"$(printf rm) -rf src\")'");
    denied_as(
        "python3 -c 'import os; os.system(\"r\"+\"m -rf src\")'",
        RuleId::RecursiveDelete,
    );
}

#[test]
fn b127_b137_interpreter_writes() {
    denied_as(
        "python3 -c 'open(\".e\"+\"nv\",\"w\").write(\"x\")'",
        RuleId::ProtectedPath,
    );
    denied_as(
        "node -e 'require(\"fs\").writeFileSync(\".e\"+\"nv\", \"x\")'",
        RuleId::ProtectedPath,
    );
    denied_as(
        "python3 -c 'import os; getattr(os,\"remo\"+\"ve\")(\"Dockerfile\")'",
        RuleId::Interpreter,
    );
    denied_as("python3 -c 'open(\"README.md\",\"w\")'", RuleId::Clobber);
    denied_as(
        "python3 -c 'open(\"src/main.rs\", mode=\"w\").write(\"\")'",
        RuleId::NotStatic,
    );
    denied_as(
        "python3 -c 'from pathlib import Path; Path(\"README.md\").write_text(\"x\")'",
        RuleId::Clobber,
    );
    denied_as("perl -e 'open(F,\">README.md\")'", RuleId::Clobber);
    denied_as(
        "perl -e 'open(my $f, \">\", \"README.md\")'",
        RuleId::Clobber,
    );
    denied_as(
        "node -e 'require(\"fs\").writeFileSync(\"README.md\", \"\")'",
        RuleId::Clobber,
    );
    denied_as("ruby -e 'File.write(\"README.md\", \"\")'", RuleId::Clobber);
    denied_as(
        "php -r 'file_put_contents(\"README.md\", \"\");'",
        RuleId::Clobber,
    );
    denied_as(
        "python3 -c 'import sys; open(sys.argv[1], \"w\").write(\"x\")' README.md",
        RuleId::NotStatic,
    );
    denied_as(
        "python3 -c 'import shutil; shutil.copy(\"/tmp/x\", \"README.md\")'",
        RuleId::Clobber,
    );
    // Appending to a tracked file and writing new files stay allowed.
    for c in [
        "python3 -c 'open(\"CHANGELOG.md\",\"a\").write(\"- x\\n\")'",
        "python3 -c 'open(\"/tmp/out.json\",\"w\").write(\"{}\")'",
        "python3 -c 'print(open(\"README.md\").read())'",
        "node -e 'require(\"fs\").writeFileSync(\"/tmp/x.txt\", \"hi\")'",
        "perl -e 'open(my $f, \"<\", \"README.md\"); print <$f>'",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn f6_literal_spawns_are_walked_not_denied() {
    for c in [
        "python3 -c \"import subprocess; print(subprocess.check_output(['git','log','-1']).decode())\"",
        "python3 -c \"import subprocess, os; subprocess.run(['cargo','test'], env=os.environ, check=True)\"",
        "node -e \"require('child_process').execSync('npm test', {env: process.env, stdio: 'inherit'})\"",
        "python3 -c 'import subprocess; subprocess.run([\"git\", \"status\"])'",
        "perl -e 'print `git status`'",
        "ruby -e 'puts `git log -1`'",
        "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"x\"])'",
        "node -e 'console.log(require(\"./package.json\").version)'",
        "python3 -c 'print(1+1)'",
        "node -p 'process.versions.node'",
        "python3 -c 'import sys; print(sys.version)'",
        "perl -ne 'print if /\\bTODO\\b/' src/main.rs",
        "perl -pe 's/\"//g' README.md",
        "python3 -c 'a=[1,2]; a.remove(1); print(a)'",
        "python3 -m pytest -q",
        "python3 -m json.tool < package.json",
        "ruby -e 'puts \"rm -rf src\"'",
        "python3 -c 'print(\"git push\")'",
    ] {
        assert_allowed(c);
    }
    denied_as(
        "python3 -c \"import subprocess; print(subprocess.check_output(['git','push']).decode())\"",
        RuleId::GitPush,
    );
    denied_as(
        "python3 -c 'import subprocess; subprocess.run([\"git\",\"push\"])'",
        RuleId::GitPush,
    );
}

#[test]
fn ordinary_one_liners_are_not_mistaken_for_spawns() {
    for c in [
        "python3 -c 'import platform; print(platform.system())'",
        "python3 -c 'import os, platform; print(platform.system(), os.getcwd())'",
        "python3 -c 'import re; print(re.compile(\"a+\").findall(\"aaa\"))'",
        "python3 -c 'import sys; print(sys.executable)'",
        "python3 -c 'import os; print(os.environ.get(\"HOME\"))'",
        "node -e 'const m = /v(\\d+)/.exec(process.version); console.log(m[1])'",
        "node -e 'setTimeout(() => console.log(1), 10)'",
        "node -e \"require('child_process').exec('ls', (err, out) => console.log(out))\"",
        "ruby -e 'require \"json\"; puts JSON.load(File.read(\"package.json\"))[\"name\"]'",
        "ruby -e 'require \"yaml\"; p YAML.load_file(\".github/workflows/ci.yml\")'",
        "php -r 'echo json_encode([\"a\" => 1]);'",
        "Rscript -e 'x <- c(1,2,3); print(match(2, x))'",
        "perl -MJSON::PP -e 'print JSON::PP->new->encode({a=>1})'",
        "perl -e 'open(my $f, \"<\", \"README.md\") or die; print while <$f>'",
        "python3 -c 'import subprocess; r = subprocess.run([\"git\", \"rev-parse\", \"HEAD\"], capture_output=True, text=True); print(r.stdout)'",
        "python3 -c 'import os; os.system(\"cargo test\")'",
        "lua -e 'local t = {1,2}; table.remove(t, 1); print(#t)'",
    ] {
        assert_allowed(c);
    }
    for c in [
        "python3 -c 'import os as o; o.remove(\"README.md\")'",
        "python3 -c 'import os; m = os; m.remove(\"README.md\")'",
        "python3 -c 'from os import *; remove(\"README.md\")'",
        "node -e 'setTimeout(\"require(\\\"fs\\\").rmSync(\\\"src\\\")\", 1)'",
        "php -r 'include $argv[1];'",
        "lua -e 'os[\"execute\"](\"rm -rf src\")'",
        "ruby -e 'require x'",
        "python3 -c 'import subprocess; subprocess.Popen([\"ls\"], executable=\"/bin/rm\")'",
    ] {
        denied(c);
    }
}

#[test]
fn indirect_spawns_and_pipes_fail_closed() {
    for c in [
        "python3 -c 'import sys; sys.modules[\"os\"].system(\"git push\")'",
        "node -e 'Object.values(require(\"child_process\"))[5](\"git push\")'",
        "node -e 'require(\"child_process\").execSync.call(null, \"git push\")'",
        "deno eval 'new Deno.Command(\"git\", {args: [\"push\"]}).outputSync()'",
        "node -e 'module.constructor._load(\"child_process\").execSync(\"git push\")'",
        "perl -e 'exec { \"git\" } \"git\", \"push\"'",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    for c in [
        "perl -e 'open(P, \"|git push\")'",
        "perl -e 'open(my $p, \"-|\", \"git\", \"push\")'",
        "perl -e 'open(P, \"git push|\")'",
        "ruby -e 'open(\"|git push\")'",
        "python3 -c 'from os import system; system(\"git push\")'",
        "python3 -c 'import subprocess; subprocess.run((\"git\",\"push\"))'",
        "python3 -c 'import os; os.system(\"git pu\" \"sh\")'",
        "node -e 'import(\"child_process\").then(m => m.execSync(\"git push\"))'",
        "node --input-type=module -e 'import {execSync} from \"child_process\"; execSync(\"git push\")'",
        "lua -e 'io.popen(\"git push\"):read(\"*a\")'",
    ] {
        denied_as(c, RuleId::GitPush);
    }
    // Scripts fed on standard input and ordinary reading code stay allowed.
    for c in [
        "python3 - <<'PY'\nimport json\nwith open(\"package.json\") as f:\n    print(json.load(f)[\"name\"])\nPY",
        "python3 - <<'PY'\nimport subprocess\nout = subprocess.check_output([\"git\", \"status\", \"--short\"], text=True)\nfor line in out.splitlines():\n    print(line)\nPY",
        "python3 - <<'PY'\nimport os\nfor root, dirs, files in os.walk(\"src\"):\n    for name in files:\n        print(os.path.join(root, name))\nPY",
        "node - <<'JS'\nconst fs = require(\"fs\");\nconst pkg = JSON.parse(fs.readFileSync(\"package.json\", \"utf8\"));\nconsole.log(Object.keys(pkg.dependencies || {}).join(\"\\n\"));\nJS",
        "node -e 'const p=require(\"./package.json\"); for (const [k,v] of Object.entries(p.scripts)) console.log(k, v)'",
        "node -e 'require(\"fs\").readdirSync(\".\").forEach(f => console.log(f))'",
        "python3 -c \"import tomllib; print(tomllib.load(open('Cargo.toml','rb'))['package']['version'])\"",
        "ruby -e 'puts Dir.glob(\"src/**/*.rs\").map { |f| [f, File.readlines(f).size] }.to_h'",
    ] {
        assert_allowed(c);
    }
    denied_as(
        "python3 - <<'PY'\nimport shutil\nshutil.rmtree(\"src\")\nPY",
        RuleId::Interpreter,
    );
}

#[test]
fn long_one_liners_are_bounded() {
    use std::time::{Duration, Instant};
    let unit = "subprocess.run(open(";
    let body = unit.repeat(60_000 / unit.len());
    for code in [
        format!("python3 -c 'import subprocess; {body}'"),
        format!(
            "node -e 'require(\"child_process\"); {}'",
            "exec([".repeat(8_000)
        ),
        format!("perl -e '{}'", "system \"a\", ".repeat(4_000)),
        format!("awk '{}'", "BEGIN{system()} ".repeat(3_000)),
        format!("sed '{}'", "s/a/b/;".repeat(8_000)),
        format!("node -e '\"{}\"'", "\\u{".repeat(15_000)),
    ] {
        let start = Instant::now();
        let _ = decide(&code);
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{} took {:?}",
            &code[..40],
            start.elapsed()
        );
    }
}

#[test]
fn data_piped_into_a_shell_and_more_runners() {
    // A command fed data the guard cannot see: a shell there runs that data.
    for c in [
        "awk 'BEGIN{print \"rm -rf src\" | \"sh\"}'",
        "tar -xf /tmp/a.tar --to-command=sh",
        "tar -cf /tmp/a.tar --use-compress-program=bash src",
        "sqlite3 :memory: \".once '|sh'\" \"select 'rm -rf src'\"",
        "socat TCP-LISTEN:9000 EXEC:sh",
        "socat - SYSTEM:bash",
        "nc -l 9000 -e /bin/sh",
        "ncat -l 9000 --sh-exec bash",
        "man -P sh ls",
        "man --pager=bash ls",
        "ssh host < deploy.sh",
        "echo 'rm -rf ~' | ssh host",
        "ssh host <<< 'git push'",
    ] {
        denied(c);
    }
    denied_as("socat - 'EXEC:rm -rf src'", RuleId::RecursiveDelete);
    denied_as("nc -l 9000 -c 'rm -rf src'", RuleId::RecursiveDelete);
    denied_as("man -P 'rm -rf src' ls", RuleId::RecursiveDelete);
    denied_as(
        "zip -q /tmp/z.zip README.md -qTT 'rm -rf src #'",
        RuleId::RecursiveDelete,
    );
    denied_as(
        "sqlite3 :memory: \".once --bom '|rm -rf src'\" 'select 1'",
        RuleId::RecursiveDelete,
    );
    denied_as("sqlite3 :memory: '.open --new README.md'", RuleId::Clobber);
    denied_as("sqlite3 :memory: '.trace .env'", RuleId::ProtectedPath);
    denied_as("sqlite3 /tmp/a.db '.ar -x'", RuleId::DestructiveShell);
    denied_as(
        "tar -cf /tmp/a.tar --index-file=README.md src",
        RuleId::Clobber,
    );
    denied_as("tar -cf /tmp/a.tar -g .env src", RuleId::ProtectedPath);
    for c in [
        "crontab /tmp/jobs",
        "echo '* * * * * rm -rf ~' | crontab -",
        "crontab -r",
        "less '+!rm -rf src' README.md",
        "vim -u /tmp/evil.vim README.md",
        "vim --remote-send '<Esc>:!rm -rf src<CR>'",
        "gvim --servername X --remote-expr 'system(\"git push\")'",
        "make MAKEFLAGS=--eval=x test",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    for c in [
        "awk '{print $1 | \"sort -u\"}' f",
        "crontab -l",
        "man -P cat ls",
        "less +G README.md",
        "vim -u NONE README.md",
        "socat - TCP:localhost:8080",
        "nc -z localhost 5432",
        "ssh -T git@github.com",
        "tar -xzf /tmp/deps.tgz -C /tmp/deps",
        "sqlite3 app.db \".mode csv\" \".import /tmp/users.csv users\"",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn spawned_commands_input_environment_and_directory() {
    // Input fed by the code: a shell reading it runs what the guard cannot see.
    for c in [
        "python3 -c 'import subprocess; subprocess.run([\"bash\"], input=\"rm -rf src\", text=True)'",
        "perl -e 'open(my $p, \"|-\", \"sh\"); print $p \"rm -rf src\"'",
        "ruby -e 'IO.popen(\"sh\", \"w\") { |io| io.puts \"rm -rf src\" }'",
        "node -e 'require(\"child_process\").spawn(\"sh\").stdin.end(\"rm -rf src\")'",
    ] {
        denied(c);
    }
    // The environment of the commands run.
    for c in [
        "python3 -c 'import subprocess; subprocess.run([\"git\",\"commit\"], env={\"GIT_EDITOR\": \"rm -rf src;:\"})'",
        "python3 -c 'import os, subprocess; os.environ[\"GIT_EDITOR\"]=\"x\"; subprocess.run([\"git\",\"commit\"])'",
        "python3 -c 'import os; os.putenv(\"GIT_EDITOR\", \"x\"); os.system(\"git commit\")'",
        "node -e 'process.env.GIT_EDITOR=\"x\"; require(\"child_process\").execSync(\"git commit\")'",
        "node -e 'require(\"child_process\").execSync(\"git commit\", {env: {GIT_EDITOR: \"x\"}})'",
        "ruby -e 'ENV[\"GIT_EDITOR\"]=\"x\"; system(\"git commit\")'",
        "perl -e '$ENV{GIT_EDITOR}=\"x\"; system(\"git commit\")'",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    // Another directory: relative paths there are not the ones the guard sees.
    for c in [
        "python3 -c 'import os; os.chdir(\"/home/dev/other\"); os.system(\"rm -rf target\")'",
        "python3 -c 'import subprocess; subprocess.run([\"rm\",\"-rf\",\"target\"], cwd=\"/home/dev/other\")'",
        "node -e 'require(\"child_process\").execSync(\"rm -rf target\", {cwd: \"/home/dev/other\"})'",
        "ruby -e 'Dir.chdir(\"/home/dev/other\") { system(\"rm -rf target\") }'",
    ] {
        denied(c);
    }
    // shell=True with a list runs the first item as a shell line; Node joins
    // the items unquoted.
    denied_as(
        "python3 -c 'import subprocess; subprocess.run([\"git push\"], shell=True)'",
        RuleId::GitPush,
    );
    denied_as(
        "node -e 'require(\"child_process\").spawnSync(\"echo\", [\"$(rm -rf src)\"], {shell: true})'",
        RuleId::RecursiveDelete,
    );
    for c in [
        "python3 -c 'import subprocess, os; subprocess.run([\"cargo\",\"test\"], env=os.environ)'",
        "python3 -c 'import subprocess; subprocess.run([\"rm\",\"-rf\",\"target\"])'",
        "python3 -c 'import subprocess; subprocess.run([\"git\",\"status\"], stdin=subprocess.DEVNULL)'",
        "node -e 'require(\"child_process\").execSync(\"npm test\", {stdio: \"inherit\"})'",
        "python3 -c 'import os; print(os.environ[\"HOME\"]); os.system(\"cargo build\")'",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn interpolated_code_and_more_dynamic_primitives() {
    for c in [
        "python3 -c 'import subprocess; print(f\"{subprocess.run([\\\"git\\\",\\\"push\\\"])}\")'",
        "perl -e 'print \"@{[ system(q(git push)) ]}\"'",
        "node -e 'console.log(`${require(\"child_process\").execSync(\"git push\")}`)'",
        "julia -e 'println(\"$(run(`git push`))\")'",
    ] {
        denied_as(c, RuleId::GitPush);
    }
    denied("ruby -e 'puts \"#{system(\"git push\")}\"'");
    denied_as(
        "ruby -e 'puts \"#{system(%q(git push))}\"'",
        RuleId::GitPush,
    );
    for c in [
        "python3 -c 'import shutil; print(f\"{shutil.rmtree(\\\"src\\\")}\")'",
        "python3 -c 'import pdb; pdb.run(\"x\")'",
        "python3 -c 'import timeit; timeit.timeit(\"x\")'",
        "python3 -c 'import cProfile; cProfile.run(\"x\")'",
        "python3 -c 'import pkgutil; pkgutil.resolve_name(\"os:system\")(\"x\")'",
        "node -e 'new (require(\"vm\").Script)(\"x\").runInThisContext()'",
        "node -e 'require(\"module\").createRequire(__filename)(\"child_process\")'",
        "node --input-type=module -e 'import \"data:text/javascript,console.log(1)\"'",
        "perl -pe 's/x/$y/ee' README.md",
        "ruby -e 'require \"pathname\"; Pathname.new(\"README.md\").delete'",
        "php -r 'include \"php://stdin\";'",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    denied_as(
        "python3 -c 'from pathlib import Path; Path(\"README.md\").open(\"w\")'",
        RuleId::Clobber,
    );
    denied_as(
        "python3 -c 'from pathlib import Path; Path(\"/tmp/x\").rename(\"README.md\")'",
        RuleId::Clobber,
    );
    denied_as("ruby -e 'File.new(\"README.md\", \"w\")'", RuleId::Clobber);
    denied_as(
        "node -e 'require(\"fs\").openSync(\".env\", \"w\")'",
        RuleId::ProtectedPath,
    );
    for c in [
        "python3 -c 'name=\"x\"; print(f\"hello {name}\")'",
        "php -r 'echo preg_replace(\"/a/\", \"b\", \"aaa\");'",
        "ruby -e 'x=1; puts \"n=#{x + 1}\"'",
        "node -e 'const v=process.version; console.log(`node ${v}`)'",
        "python3 -c 'from pathlib import Path; print(Path(\"README.md\").open().read())'",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn versioned_interpreter_names() {
    for c in [
        "php8.2 -r 'system(\"git push\");'",
        "tclsh8.6 <<< 'exec git push'",
        "perl5.36 -e 'system \"git push\"'",
        "ruby3.2 -e 'system \"git push\"'",
        "node18 -e 'require(\"child_process\").execSync(\"git push\")'",
        "lua5.4 -e 'os.execute(\"git push\")'",
    ] {
        denied(c);
    }
    assert_allowed("php8.2 -r 'echo PHP_VERSION;'");
}

#[test]
fn code_hidden_in_other_options() {
    for c in [
        "deno eval -p 'Deno.removeSync(\"src\", {recursive: true})'",
        "deno eval --ext=ts 'Deno.removeSync(\"src\", {recursive: true})'",
        "deno repl --eval 'Deno.removeSync(\"src\", {recursive: true})'",
        "deno run 'data:text/javascript,Deno.removeSync(\"src\",{recursive:true})'",
        "deno run 'data:text/javascript;base64,RGVubw=='",
        "perl -e 'system' -e '\"git push\"'",
        "php -d auto_prepend_file=php://stdin -r 'echo 1;'",
        "osascript -l JavaScript -e 'Application.currentApplication().doShellScript(\"rm -rf src\")'",
        "pwsh -e cgBtACAALQByAGYAIABzAHIAYwA=",
        "pwsh -en cgBtACAALQByAGYAIABzAHIAYwA=",
    ] {
        denied(c);
    }
    denied_as(
        "deno eval 'Deno.writeTextFileSync(\"README.md\", \"\")'",
        RuleId::Clobber,
    );
    for c in [
        "deno eval -p 'Deno.version'",
        "deno run -A main.ts",
        "bun run build",
        "osascript -l JavaScript -e 'console.log(1)'",
        "perl -e 'print 1;' -e 'print 2'",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn comments_and_unicode() {
    for c in [
        "python3 - <<'PY'\n# café: read the version\nimport json\nprint(json.load(open(\"package.json\"))[\"version\"])\nPY",
        "python3 -c 'print(\"héllo wörld\")'",
        "node -e 'const café = 1; console.log(café)'",
        "ruby -e 'puts \"ü\".upcase'",
        "python3 -c 'print(1) # os.system(\"git push\")'",
    ] {
        assert_allowed(c);
    }
    for c in [
        "python3 -c 'import os; os.ｓｙｓｔｅｍ(\"git push\")'",
        "python3 -c $'import os # comment\\nos.system(\"git push\")'",
        "node -e '\\u0065val(\"1\")'",
    ] {
        denied(c);
    }
}

#[test]
fn escapes_the_guard_cannot_decode_and_more_spawners() {
    // Escapes that are decoded: the command is seen.
    denied_as(
        "python3 -c 'import os; os.system(\"\\x67it push\")'",
        RuleId::GitPush,
    );
    denied_as("perl -e 'system \"\\x{67}it push\"'", RuleId::GitPush);
    denied_as(
        "node -e 'require(\"child_process\").execSync(\"\\u0067it push\")'",
        RuleId::GitPush,
    );
    // Escapes that are not: the command is unknown.
    for c in [
        "python3 -c 'import os; os.system(\"\\N{LATIN SMALL LETTER G}it push\")'",
        "perl -e 'system \"\\N{U+67}it push\"'",
        "perl -e 'system \"\\Lgit push\"'",
        "python3 -c 'import sh; sh.git.push()'",
        "python3 -c 'from plumbum import local; local[\"git\"][\"push\"]()'",
        "node -e 'require(\"child_process\").execSync(\"-c x\", {shell: \"/usr/bin/python3\"})'",
        "php -r 'putenv(\"LD_PRELOAD=/tmp/x.so\"); mail(\"a\",\"b\",\"c\");'",
    ] {
        denied(c);
    }
    denied_as("perl -e 'open F, \"|git push\"'", RuleId::GitPush);
    denied_as(
        "perl -e 'open F, \">README.md\"; print F 1'",
        RuleId::Clobber,
    );
    for c in [
        "python3 -c 'import re; print(re.findall(\"\\d+\", \"a1b22\"))'",
        "python3 -c 'import json; profile = json.load(open(\"p.json\")); print(profile[\"name\"])'",
        "perl -e 'open F, \"<README.md\"; print <F>'",
        "node -e 'require(\"child_process\").execSync(\"npm test\", {shell: \"/bin/bash\"})'",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn r2_vim_clustered_short_options() {
    // `-sc CMD` is `-s -c CMD`: an editor given commands is denied, however
    // its options are clustered.
    for c in [
        "ex -sc 'call append(line(\"$\"), [\"[guard]\",\"allow_unsafe = true\"])|x' pawl.toml",
        "ex -sc 'r /tmp/g.toml|x' pawl.toml",
        "ex -sc '%d|x' Dockerfile",
        "ex -sc 'w! README.md' /dev/null",
        "ex -sc 'call delete(\"src\",\"rf\")|q'",
        "ex -sc 'call system(\"git push\")|q'",
        "ex -Nsc 'call system(\"git push\")|q'",
        "vim -esc 'call system(\"git push\")|q'",
        "vim -Nesc '%d|x' README.md",
        "vi -nc 'x' README.md",
        "ex -scx README.md",
        "vim -nS /tmp/session.vim",
        "vim -Nu /tmp/evil.vim README.md",
        "vim -nw /tmp/keys README.md",
        "vim -i /tmp/viminfo README.md",
        "ex --cmd 'call system(\"git push\")' README.md",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    for c in [
        "vim -Nu NONE README.md",
        "vim -n -i NONE README.md",
        "view README.md",
        "vim -R +10 src/main.rs",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn r2_ed_commands_from_known_stdin() {
    // An emptied buffer written over a tracked file is a clobber.
    for c in [
        "ed -s README.md <<< $',d\\nw\\nq'",
        "ed -s README.md <<< $'1,$d\\nw\\nq'",
        "ed -s README.md <<< $'%d\\nwq'",
        "ed -s /tmp/x <<< $'w README.md\\nq'",
        "ed -s /tmp/x <<< $'e README.md\\n,d\\nw\\nq'",
    ] {
        denied_as(c, RuleId::Clobber);
    }
    // Protected files: denied whatever the commands; `!` runs commands.
    denied_as(
        "ed -s pawl.toml <<< $'$a\\nx\\n.\\nw\\nq'",
        RuleId::ProtectedPath,
    );
    denied_as("ed .env", RuleId::ProtectedPath);
    denied_as("ed -s /tmp/x <<< $'w .env\\nq'", RuleId::ProtectedPath);
    denied_as("ed -s /tmp/x <<< $'!git push\\nq'", RuleId::Interpreter);
    denied_as("ed '!rm -rf src'", RuleId::Interpreter);
    denied("echo ',d' | ed -s README.md");
    // Ordinary edits of a tracked file, and scratch files, stay allowed.
    for c in [
        "ed -s README.md <<< $'/foo/d\\nw\\nq'",
        "ed -s README.md <<< $'1s/a/b/\\nw README.md\\nq'",
        "ed -s notes.txt <<< $',d\\nw\\nq'",
        "ed -s /tmp/x <<< $',d\\nw /tmp/y\\nq'",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn r2_python_modules_that_write() {
    denied_as("python3 -m zipfile -e /tmp/evil.zip .", RuleId::NotStatic);
    denied_as("python3 -m tarfile -e /tmp/evil.tar .", RuleId::NotStatic);
    denied_as("python3 -m tarfile -e /tmp/evil.tar", RuleId::NotStatic);
    denied_as(
        "python -m tarfile --extract /tmp/evil.tar src",
        RuleId::NotStatic,
    );
    denied_as(
        "python3 -I -m zipfile -e /tmp/evil.zip src",
        RuleId::NotStatic,
    );
    denied_as(
        "python3 -W ignore -m zipfile -e /tmp/evil.zip .",
        RuleId::NotStatic,
    );
    denied_as("python3 -m zipfile -c README.md /tmp/a", RuleId::Clobber);
    denied_as(
        "python3 -m json.tool /tmp/x.json pawl.toml",
        RuleId::ProtectedPath,
    );
    denied_as(
        "python3 -m json.tool --indent 4 /tmp/x.json .env",
        RuleId::ProtectedPath,
    );
    denied_as(
        "python3 -m json.tool /tmp/x.json package.json",
        RuleId::Clobber,
    );
    denied_as("python3 -m venv --clear .", RuleId::RecursiveDelete);
    denied_as("python3 -m venv --clear src", RuleId::RecursiveDelete);
    denied_as("python3 -m venv --cle src", RuleId::RecursiveDelete);
    denied_as("python3 -m gzip -d README.md.gz", RuleId::Clobber);
    for c in [
        "python3 -m zipfile -e /tmp/a.zip /tmp/out",
        "python3 -m tarfile -e /tmp/a.tar target/fixtures",
        "python3 -m zipfile -l /tmp/a.zip",
        "python3 -m json.tool package.json",
        "python3 -m json.tool /tmp/x.json /tmp/out.json",
        "python3 -m venv .venv",
        "python3 -m venv --clear .venv",
        "python3 -m pydoc os",
        "python3 -m pydoc -w os",
        "python3 -m http.server 9000",
        "python3 -m pip install -e .",
        "python3 -m pytest -x",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn r2_node_print_then_eval() {
    for c in [
        "node -p -e 'require(\"fs\").rmSync(\"src\",{recursive:true})'",
        "node -e -p 'require(\"fs\").rmSync(\"src\",{recursive:true})'",
        "node --print --eval 'require(\"fs\").rmSync(\"src\",{recursive:true})'",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    assert_allowed("node -p -e '1+1'");
}

#[test]
fn r2_package_manager_runners_walk_their_command() {
    for c in [
        "npx -c 'rm -rf src'",
        "npx --call='rm -rf src'",
        "npm exec -c 'rm -rf src'",
        "npm exec --call 'rm -rf src'",
        "npm x -c 'rm -rf src'",
        "npm exec -- rm -rf src",
        "npm exec --yes -- rm -rf src",
        "npx rimraf src",
        "npx rimraf@5 src",
        "npx --yes rimraf src",
        "npm run env -- rm -rf src",
        "npm run-script env rm -rf src",
        "pnpm exec rm -rf src",
        "pnpm dlx rimraf src",
        "pnpm exec -c 'rm -rf src'",
        "yarn exec rm -rf src",
        "yarn dlx rimraf src",
        "bunx rimraf src",
        "bun x rimraf src",
        "uv run rm -rf src",
        "uv run --with requests rm -rf src",
        "uv run -- rm -rf src",
        "uv tool run rimraf src",
        "uvx rimraf src",
        "poetry run rm -rf src",
        "pipenv run rm -rf src",
        "hatch run rm -rf src",
        "conda run -n x rm -rf src",
        "pdm run rm -rf src",
        "rye run rm -rf src",
        "pnpm exec -w rm -rf src",
        "npm --prefix /tmp exec rm -rf src",
        "npm -w pkg exec -- rm -rf src",
        "yarn rimraf src",
        "pnpm rimraf src",
        "bun rimraf src",
        "yarn run rimraf src",
        "pnpm run rimraf src",
        "bun run rimraf src",
        "uv run --python 3.12 rm -rf src",
        "npx -p rimraf rimraf src",
        "EDITOR='rm -rf src #' npm config edit",
        "npm edit --editor 'rm -rf src #' lodash",
    ] {
        denied_as(c, RuleId::RecursiveDelete);
    }
    for c in [
        "npx node -e 'require(\"child_process\").execSync(\"git push\")'",
        "npm exec node -- -e 'require(\"child_process\").execSync(\"git push\")'",
        "uv run bash -c 'git push'",
        "yarn node -e 'require(\"child_process\").execSync(\"git push\")'",
        "poetry run git push",
    ] {
        denied_as(c, RuleId::GitPush);
    }
    for c in [
        "npm run --script-shell=/tmp/evil.sh test",
        "npm test --script-shell /tmp/evil.sh",
        "npm_config_script_shell=/tmp/evil.sh npm test",
        "NPM_CONFIG_SCRIPT_SHELL=/tmp/evil.sh npm run build",
        "npm pkg set 'scripts={\"x\":\"rm -rf src\"}' --json",
        "npm pkg set \"scripts.x=$CMD\"",
        "npm pkg set scripts.x='[1]' --json",
        "npm config set script-shell /tmp/evil.sh",
        "npx --script-shell=/tmp/e.sh foo",
        "npm --$OPT=/tmp/e.sh test",
        "npm --script-sh /tmp/e.sh test",
        "npm --scri=/tmp/e.sh test",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    denied("npx \"$TOOL\" src");
    denied_as(
        "npm pkg set scripts.x='rm -rf src'",
        RuleId::RecursiveDelete,
    );
    denied_as(
        "npm pkg set scripts.x='\"rm -rf src\"' --json",
        RuleId::RecursiveDelete,
    );
    denied_as("npm pkg set 'scripts.test=git push'", RuleId::GitPush);
    denied_as("npm set-script x 'rm -rf src'", RuleId::RecursiveDelete);
    denied_as(
        "npm pkg set scripts.x='rm -rf src' && npm run x",
        RuleId::RecursiveDelete,
    );
    denied_as("uv run -m zipfile -e /tmp/e.zip .", RuleId::NotStatic);
    denied_as("uv run --module zipfile -e /tmp/e.zip .", RuleId::NotStatic);
    for c in [
        "npx tsc --noEmit",
        "npx prettier --check .",
        "npx --yes prettier@3 --write src",
        "npx @biomejs/biome check .",
        "npm exec --package=foo -- foo --help",
        "npm exec -- eslint .",
        "npm pkg set version=1.0.1",
        "npm pkg set scripts.test=\"vitest run\"",
        "npm pkg set scripts.build='tsc -p .' scripts.lint='eslint .'",
        "npm pkg get scripts",
        "npm run build -- --watch",
        "npm run build -- --env=$ENV",
        "npm test -- --grep \"$PATTERN\"",
        "npm run build --env=$ENV",
        "npm config get registry",
        "pnpm install",
        "pnpm exec vitest run",
        "yarn test",
        "yarn build",
        "yarn lint --fix",
        "yarn add -D vitest",
        "pnpm add zod",
        "pnpm run build",
        "pnpm -r test",
        "bun install",
        "bun run dev",
        "npm --prefix web run build",
        "bun test",
        "uv run pytest",
        "uv run --with pytest pytest -x",
        "uv run -m pytest -q",
        "uv run --python 3.12 python -V",
        "uv run scripts/gen.py",
        "uvx ruff check .",
        "poetry run pytest -q",
        "hatch run test",
        "conda run -n base python -V",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn r2_toolchains_that_run_programs() {
    denied_as(
        "cargo --config 'target.x86_64-unknown-linux-gnu.runner=\"rm -rf src #\"' run",
        RuleId::Interpreter,
    );
    denied_as(
        "cargo run --config target.'cfg(all())'.runner='x'",
        RuleId::Interpreter,
    );
    denied_as(
        "cargo build --config build.rustc-wrapper='x'",
        RuleId::Interpreter,
    );
    denied_as("cargo build --config /tmp/evil.toml", RuleId::Interpreter);
    denied_as(
        "cargo build --config 'env.RUSTC_WRAPPER=\"x\"'",
        RuleId::Interpreter,
    );
    for c in [
        "RUSTC_WRAPPER='rm -rf src' cargo build",
        "RUSTC_WORKSPACE_WRAPPER='rm -rf src' cargo check",
        "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER='rm -rf src' cargo run",
        "export CARGO_TARGET_AARCH64_APPLE_DARWIN_RUNNER='rm -rf src'; cargo test",
        "go run -exec 'rm -rf src' .",
        "go test -exec='rm -rf src' ./...",
        "go build -toolexec 'rm -rf src' ./...",
    ] {
        denied_as(c, RuleId::RecursiveDelete);
    }
    denied_as(
        "RUSTFLAGS='-C linker=/tmp/evil' cargo build",
        RuleId::Interpreter,
    );
    denied_as("GOFLAGS=-exec=evil go test ./...", RuleId::Interpreter);
    denied_as("go env -w GOFLAGS=-toolexec=/tmp/evil", RuleId::Interpreter);
    denied_as("go env -w CC=/tmp/evil", RuleId::Interpreter);
    denied_as("pipx run rimraf src", RuleId::RecursiveDelete);
    denied("RUSTC_WRAPPER=\"$W\" cargo build");
    for c in [
        "cargo test",
        "cargo --config net.git-fetch-with-cli=true build",
        "RUSTC_WRAPPER=sccache cargo build",
        "RUSTFLAGS='-D warnings' cargo clippy",
        "go test ./...",
        "go test -run TestX -v ./...",
        "go vet ./...",
        "go env -w GOPRIVATE=github.com/acme",
        "go env GOPATH",
        "pipx run black --check .",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn r2_pagers_and_preprocessors_in_the_environment() {
    for c in [
        "LESSOPEN='|rm -rf src %s' less README.md",
        "LESSOPEN='||rm -rf src %s' less README.md",
        "export LESSOPEN='|rm -rf src %s'; man ls",
        "LESSCLOSE='rm -rf src %s %s' less README.md",
        "MANPAGER='rm -rf src' man ls",
        "PAGER='rm -rf src' man ls",
        "PAGER='rm -rf src' pydoc3 os",
        "PAGER='rm -rf src' python3 -c 'import pydoc; pydoc.pager(\"x\")'",
        "PSQL_PAGER='rm -rf src' psql -c 'select 1'",
        "SYSTEMD_PAGER='rm -rf src' journalctl -u x",
        "AWS_PAGER='rm -rf src' aws s3 ls",
    ] {
        denied_as(c, RuleId::RecursiveDelete);
    }
    denied("LESSOPEN=\"$X\" less README.md");
    denied_as(
        "python3 -c 'import os; os.environ[\"PAGER\"]=\"rm -rf src\"; import pydoc; pydoc.pager(\"x\")'",
        RuleId::Interpreter,
    );
    for c in [
        "LESSOPEN='|lesspipe %s' less README.md",
        "MANPAGER=cat man ls",
        "PAGER=cat psql -c 'select 1'",
        "PAGER=cat python3 -c 'help(len)'",
        "PAGER=cat git log",
        "man ls",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn r2_compiled_from_unseen_code_then_run() {
    for c in [
        "gcc -x c - -o /tmp/a.out <<< 'int main(){return system(\"rm -rf src\");}' && /tmp/a.out",
        "echo 'int main(){}' | cc -x c -o /tmp/b - && /tmp/b",
        "printf 'int main(){}' > /tmp/x.c && cc /tmp/x.c -o /tmp/x && /tmp/x",
        "printf 'fn main(){}' > /tmp/x.rs && rustc /tmp/x.rs -o /tmp/x && /tmp/x",
        "cd /tmp && gcc -x c - <<< 'int main(){}' && ./a.out",
    ] {
        denied_as(c, RuleId::NotStatic);
    }
    for c in [
        "gcc -wrapper rm,-rf,src x.c",
        "echo 'int main(){}' | tcc -run -",
        "clang -fplugin=/tmp/p.so x.c",
        "rustc -C linker=/tmp/evil x.rs",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    for c in [
        "gcc src/main.c -o /tmp/app && /tmp/app",
        "cc -O2 -Wall -o target/app src/main.c",
        "rustc --edition 2021 src/main.rs -o /tmp/m",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn r2_inline_code_extracts_moves_and_aliases() {
    // Archives extracted and trees merged into the repository.
    for c in [
        "python3 -c 'import zipfile; zipfile.ZipFile(\"/tmp/evil.zip\").extractall()'",
        "python3 -c 'import tarfile; tarfile.open(\"/tmp/e.tar\").extractall(\".\")'",
        "python3 -c 'import tarfile; t=tarfile.open(\"/tmp/e.tar\"); t.extract(\"a\", \"src\")'",
        "python3 -c 'import shutil; shutil.unpack_archive(\"/tmp/evil.zip\",\".\")'",
        "python3 -c 'import shutil; shutil.unpack_archive(\"/tmp/evil.zip\")'",
        "python3 -c 'import shutil; shutil.unpack_archive(\"/tmp/e.zip\", extract_dir=d)'",
        "python3 -c 'import shutil; shutil.copytree(\"/tmp/d\",\".\",dirs_exist_ok=True)'",
    ] {
        denied_as(c, RuleId::NotStatic);
    }
    // Moving a tracked directory out of the repository, in every language.
    for c in [
        "python3 -c 'import os; os.rename(\"src\",\"/tmp/s2\")'",
        "python3 -c 'import os; os.replace(\"src\",\"/tmp/s2\")'",
        "python3 -c 'import shutil; shutil.move(\"src\",\"/tmp/s2\")'",
        "python3 -c 'import pathlib; pathlib.Path(\"src\").rename(\"/tmp/s2\")'",
        "perl -e 'rename \"src\",\"/tmp/s9\"'",
        "node -e 'require(\"fs\").renameSync(\"src\",\"/tmp/s10\")'",
    ] {
        denied_as(c, RuleId::RecursiveDelete);
    }
    denied_as(
        "python3 -c 'import os; os.replace(x,\"/tmp/s2\")'",
        RuleId::NotStatic,
    );
    denied_as("perl -e 'open(F, \"+>README.md\")'", RuleId::Clobber);
    // Aliases of builtins and modules that write or run commands.
    for c in [
        "python3 -c 'f=open; f(\"README.md\",\"w\")'",
        "python3 -c 'from os import system as s; s(\"git push\")'",
        "python3 -c 'import os; list(map(os.system, [\"git push\"]))'",
        "python3 -c 'import subprocess; r = subprocess.run; r(\"git push\", shell=True)'",
        "python3 -c 'import pydoc; pydoc.pipepager(\"x\",\"rm -rf src\")'",
        "node -e 'const m=\"child_process\"; const c=require(m); c.execSync(\"ls\")'",
        "node -e 'const {execSync: run}=require(\"child_process\"); run(\"git push\")'",
        "node -e 'const w=require(\"fs\").writeFileSync; w(\"README.md\",\"\")'",
        "node -e 'const c=require(\"child_process\"); const f=c.execSync; f(\"git push\")'",
        "python3 -c 'import subprocess as s; f = s.run; f(\"git push\", shell=True)'",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    denied_as(
        "node -e 'const c=require(\"child\"+\"_process\"); c.execSync(\"git push\")'",
        RuleId::GitPush,
    );
    for c in [
        "python3 -c 'import zipfile; zipfile.ZipFile(\"/tmp/e.zip\").extractall(\"/tmp/out\")'",
        "python3 -c 'import zipfile; zipfile.ZipFile(\"/tmp/e.zip\").extractall(path=\"target/x\")'",
        "python3 -c 'import shutil; shutil.unpack_archive(\"/tmp/e.zip\", \"/tmp/x\")'",
        "python3 -c 'import shutil; shutil.copytree(\"/tmp/d\",\"/tmp/e\",dirs_exist_ok=True)'",
        "python3 -c 'import shutil; shutil.copytree(\"src\",\"/tmp/src-copy\")'",
        "python3 -c 'import os; os.rename(\"/tmp/a\",\"/tmp/b\")'",
        "python3 -c 'import pathlib; pathlib.Path(\"/tmp/a\").rename(\"/tmp/b\")'",
        "python3 -c 'print(open(\"README.md\").read().replace(\"src\", \"/tmp/x\"))'",
        "perl -e 'open(F, \"<README.md\"); print <F>'",
        "node -e 'const {readFileSync, writeFileSync} = require(\"fs\"); console.log(readFileSync(\"README.md\",\"utf8\"))'",
        "node -e 'const {execSync} = require(\"child_process\"); console.log(execSync(\"git status\").toString())'",
        "python3 -c 'from subprocess import PIPE, run; print(run([\"git\",\"status\"], stdout=PIPE).stdout)'",
        "python3 -c 'import json; d=json.load(open(\"package.json\")); print(d[\"version\"])'",
        "python3 -c 'with open(\"/tmp/out.txt\",\"w\") as f: f.write(\"x\")'",
        "python3 -c 'import feedparser; e = feed.entries[0]; u = e.link; print(u)'",
        "python3 -c 'import copy; d = {}; c = d.copy; print(c())'",
        "python3 -c 'from unittest.mock import call; print(call(1) == call(1))'",
        "node -e 'const log = console.log; log(1)'",
    ] {
        assert_allowed(c);
    }
    // Clobbering a tracked file from a one-liner stays denied (part A, kept).
    denied_as(
        "python3 -c \"import json; d=json.load(open('package.json')); d['version']='1.0.1'; json.dump(d, open('package.json','w'), indent=2)\"",
        RuleId::Clobber,
    );
}

#[test]
fn r2_more_runner_and_module_variants() {
    denied_as("ed -s README.md <<< $'g/^/d\\nw\\nq'", RuleId::Clobber);
    denied_as("python3 -m tarfile -ve /tmp/evil.tar .", RuleId::NotStatic);
    denied_as("python3 -m tarfile -vc README.md /tmp/a", RuleId::Clobber);
    denied_as("virtualenv --clear src", RuleId::RecursiveDelete);
    denied_as("uv venv src", RuleId::RecursiveDelete);
    denied_as("uv venv --python 3.12 .", RuleId::RecursiveDelete);
    denied_as("yarn exec 'rm -rf src'", RuleId::RecursiveDelete);
    denied_as("npm explore lodash -- git push", RuleId::GitPush);
    denied_as("CC='rm -rf src #' cargo build", RuleId::RecursiveDelete);
    denied_as(
        "go vet -vettool='rm -rf src' ./...",
        RuleId::RecursiveDelete,
    );
    for c in [
        "npm_config_call='rm -rf src' npm exec",
        "NPM_CONFIG_SHELL=/tmp/evil npm explore lodash",
        "npm_config_git=/tmp/evil npm install",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    for c in [
        "python3 -m tarfile -tvf /tmp/a.tar",
        "python3 -m tarfile -l /tmp/a.tar",
        "virtualenv .venv",
        "virtualenv --clear .venv",
        "uv venv",
        "uv venv .venv --python 3.12",
        "CC=clang cargo build",
        "CC='ccache gcc' make",
        "npm_config_registry=https://r.example npm install",
        "yarn exec tsc --noEmit",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn r2_package_programs_that_run_commands() {
    for c in [
        "npx shx rm -rf src",
        "npx trash-cli src",
        "npx -y concurrently 'rm -rf src'",
        "npx -y cross-env X=1 rm -rf src",
        "npx cross-env-shell 'rm -rf src'",
        "npx dotenv -- rm -rf src",
        "dotenv -e .env.test -- rm -rf src",
        "npx nodemon --exec 'rm -rf src'",
        "npx nodemon --exec='rm -rf src' src/index.js",
        "onchange 'src/**' -- rm -rf src",
        "ls | entr rm -rf src",
    ] {
        denied_as(c, RuleId::RecursiveDelete);
    }
    for c in [
        "npx zx <<< 'await $`rm -rf src`'",
        "npx tsx -e 'require(\"fs\").rmSync(\"src\",{recursive:true})'",
        "npx ts-node -e 'require(\"fs\").rmSync(\"src\",{recursive:true})'",
        "node --require /dev/stdin -e 1 <<< 'require(\"fs\").rmSync(\"src\",{recursive:true})'",
        "make 'x=$(shell rm -rf src)'",
        "make 'x!=rm -rf src'",
        "make 'y=$(file >README.md,x)' all",
    ] {
        denied_as(c, RuleId::Interpreter);
    }
    for c in [
        "npx zx scripts/build.mjs",
        "npx concurrently \"npm:watch-*\" \"tsc -w\"",
        "npx cross-env NODE_ENV=production webpack",
        "npx -y npm-run-all --parallel lint test",
        "npx nodemon src/index.js",
        "npx nodemon --watch src --exec 'ts-node src/index.ts'",
        "npx tsx src/index.ts",
        "make CFLAGS=-O2 all",
        "make -j4 test",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn r2_many_program_variables_stay_bounded() {
    let start = std::time::Instant::now();
    let d = decide(
        "CC=ls CXX=ls LD=ls AR=ls CPP=ls HOSTCC=ls CC_LD=ls CXX_LD=ls LESSOPEN='|ls %s' LESSCLOSE=ls RUSTC_WRAPPER=ls RUSTC=ls RUSTDOC=ls cargo build",
    );
    assert!(d.is_allow(), "{d:?}");
    assert!(start.elapsed() < std::time::Duration::from_secs(2));
    denied_as(
        "CC=ls CXX=ls LD=ls AR=ls LESSOPEN='|ls %s' RUSTC_WRAPPER='rm -rf src' cargo build",
        RuleId::RecursiveDelete,
    );
}
