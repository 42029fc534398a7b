/// \file
/// \brief Implementation of the key shapes' names.
#include "bench/key_shape.hpp"

#include <cstdlib>

#include "common/errors.hpp"

namespace sortlab::bench {

std::string KeyShape::name_part() const {
  switch (kind) {
    case Kind::kAndReduced:
      return "ands:" + std::to_string(and_count);
    case Kind::kSorted:
      return "dist:sorted";
    case Kind::kEqual:
      return "dist:equal";
    case Kind::kFewDistinct:
      return "dist:few";
  }
  return "dist:unknown";
}

KeyShape and_reduced(int and_count) {
  require(and_count >= 0, "and_reduced: the AND count must be >= 0");
  KeyShape shape;
  shape.and_count = and_count;
  return shape;
}

KeyShape parse_key_shape(const std::string& text) {
  const std::string valid = "valid: ands:K (K >= 0), sorted, equal, few";
  if (text.rfind("ands:", 0) == 0) {
    const std::string count = text.substr(5);
    char* end = nullptr;
    const long value = std::strtol(count.c_str(), &end, 10);
    require(!count.empty() && *end == '\0' && value >= 0 && value <= 32,
            "bad key shape '" + text + "' (" + valid + ")");
    return and_reduced(static_cast<int>(value));
  }
  const std::string name = text.rfind("dist:", 0) == 0 ? text.substr(5) : text;
  KeyShape shape;
  if (name == "sorted") {
    shape.kind = KeyShape::Kind::kSorted;
  } else if (name == "equal") {
    shape.kind = KeyShape::Kind::kEqual;
  } else if (name == "few") {
    shape.kind = KeyShape::Kind::kFewDistinct;
  } else {
    throw Error("unknown key shape '" + text + "' (" + valid + ")");
  }
  return shape;
}

}  // namespace sortlab::bench
