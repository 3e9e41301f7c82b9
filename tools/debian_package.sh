# Sourced by tools/validation.sh and tools/swiftshader.sh: unpack_debian_package PACKAGE DIR
# downloads Debian's PACKAGE with apt-get (updating the package lists first only if the download
# fails) and unpacks it into DIR/root, without installing it or its dependencies system wide.
unpack_debian_package() {
  local package=$1 dir=$2 sudo=
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  mkdir -p "$dir"
  (cd "$dir" && { apt-get download "$package" 2>/dev/null ||
                  { $sudo apt-get update -qq && apt-get download "$package"; }; })
  dpkg -x "$dir"/"$package"_*.deb "$dir/root"
  rm -f "$dir"/"$package"_*.deb
}
