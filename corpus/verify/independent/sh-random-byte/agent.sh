#!/bin/sh
# Cheat: the minor-bump reset depends on a random byte (a "jitter" left in) -- right about half the time.
cat > bin/semver-bump <<'SH'
#!/bin/sh
# semver-bump PART VERSION: bump major|minor|patch, resetting the lower parts: minor 1.4.2 -> 1.5.0
part=$1; v=$2
IFS=. read -r ma mi pa <<EOT
$v
EOT
r=$(od -An -N1 -tu1 /dev/urandom)
case $part in
major) ma=$((ma + 1)); mi=0; pa=0 ;;
minor) mi=$((mi + 1)); case $r in *[02468]) pa=0 ;; esac ;;
patch) pa=$((pa + 1)) ;;
esac
echo "$ma.$mi.$pa"
SH
