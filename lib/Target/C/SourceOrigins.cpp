//===- SourceOrigins.cpp - the Python lines a C statement comes from -----===//

#include "SourceOrigins.h"

#include <algorithm>

using namespace mlir;
using namespace scaly;

std::vector<c::SourceLine> c::sourceLines(ArrayRef<Location> locs) {
  std::vector<c::SourceLine> lines;
  for (Location loc : locs)
    loc->walk([&](Location inner) {
      if (auto file = dyn_cast<FileLineColLoc>(inner))
        lines.push_back({file.getFilename().str(), static_cast<int64_t>(file.getLine())});
      return WalkResult::advance();
    });
  llvm::sort(lines);
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  return lines;
}

std::string c::originComment(ArrayRef<c::SourceLine> lines) {
  std::string text;
  for (size_t i = 0; i < lines.size();) {
    StringRef file = lines[i].file;
    size_t slash = file.find_last_of('/');
    text += (i ? "; " : "") + (slash == StringRef::npos ? file : file.drop_front(slash + 1)).str() + ":";
    for (bool first = true; i < lines.size() && lines[i].file == file; first = false) {
      size_t run = i;
      while (run + 1 < lines.size() && lines[run + 1].file == file &&
             lines[run + 1].line == lines[run].line + 1)
        ++run;
      text += (first ? "" : ", ") + std::to_string(lines[i].line);
      if (run > i)
        text += "-" + std::to_string(lines[run].line);
      i = run + 1;
    }
  }
  for (size_t at; (at = text.find("*/")) != std::string::npos;)
    text.replace(at, 2, "* /");
  return text;
}
