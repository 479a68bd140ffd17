// libyaml's event parser (Debian libyaml-dev), read by WhereaboutsYAML's YAMLDocument.
#include <yaml.h>
