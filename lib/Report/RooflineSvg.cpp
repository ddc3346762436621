//===- RooflineSvg.cpp - The roofline picture -----------------------------===//
//
// Log-log axes, FLOP/s over FLOP per byte. Each ceiling is drawn as the
// memory slope up to its ridge point, then flat; kernels are points at
// their arithmetic intensity and predicted (hollow) or measured (filled)
// FLOP/s. Plain SVG 1.1 text with no scripts or external references, so
// any browser or document viewer shows it.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Report/Report.h"

#include "Format.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

namespace opfuse {

namespace {
constexpr double kWidth = 960, kHeight = 640;
constexpr double kLeft = 90, kRight = 300, kTop = 60, kBottom = 70;

/// "0.01", "1", "1k", "1G" ... for a power of ten.
std::string decadeLabel(int exponent, const char *unit) {
  static const char *prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  std::string space = *unit ? " " : "";
  if (exponent < 0)
    return "0." + std::string(-exponent - 1, '0') + "1" + space + unit;
  return llvm::formatv("{0}{1}{2}{3}",
                       static_cast<int>(std::pow(10.0, exponent % 3)), space,
                       prefixes[std::min(exponent / 3, 6)], unit)
      .str();
}

struct Axes {
  int xMin, xMax, yMin, yMax; // decades
  double x(double intensity) const {
    return kLeft + (std::log10(intensity) - xMin) / (xMax - xMin) *
                       (kWidth - kLeft - kRight);
  }
  double y(double flops) const {
    return kHeight - kBottom -
           (std::log10(flops) - yMin) / (yMax - yMin) *
               (kHeight - kTop - kBottom);
  }
};

/// The width of `text` at `fontSize` in a sans-serif font, generously
/// (0.6 em a character): what layout decisions assume.
double estimateWidth(llvm::StringRef text, double fontSize) {
  return 0.6 * fontSize * text.size();
}

struct Ceiling {
  const char *label;
  double flops;
  const char *color;
};

/// A kernel drawn: its intensity and FLOP/s, predicted and measured (0:
/// not measured).
struct Point {
  std::string name;
  double intensity, predicted, measured;
};

/// Writes one roofline picture, part by part.
class RooflineWriter {
public:
  RooflineWriter(const Report &report, llvm::raw_ostream &os)
      : report(report), t(report.target), os(os),
        hbm(t.hbmBandwidth * t.memoryEfficiency),
        l2(t.l2Bandwidth * t.memoryEfficiency),
        ceilings{{"FP32", t.fp32Flops * t.computeEfficiency, "#1f77b4"},
                 {"FP16/BF16 tensor", t.fp16TensorFlops * t.tensorEfficiency,
                  "#d62728"}},
        measured(report.measured ? &*report.measured : nullptr) {}

  void write() {
    collectPoints();
    axes = chooseAxes();
    writeFrame();
    writeCeilings();
    writeKernels();
    writeLegendAndNotes();
    os << "</svg>\n";
  }

private:
  void collectPoints();
  Axes chooseAxes() const;
  void writeFrame();
  void writeCeilings();
  void writeKernels();
  void writeLegendAndNotes();
  void legend(const std::string &text, const char *color, const char *dash);
  /// A kernel's name beside its point where it overlaps nothing drawn, else
  /// a number there and the name in the key under the legend.
  void placeLabel(const std::string &name, double x, double y);

  /// A rectangle of the picture a label or a point takes.
  struct Box {
    double x, y, w, h;
    bool overlaps(const Box &o) const {
      return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h;
    }
  };
  std::vector<Box> taken;
  std::vector<std::string> numbered;

  const Report &report;
  const GpuTarget &t;
  llvm::raw_ostream &os;
  const double hbm, l2;
  const Ceiling ceilings[2];
  const MeasuredRun *measured;
  std::vector<Point> points;
  std::vector<std::string> skipped;
  Axes axes{0, 0, 0, 0};
  const double plotRight = kWidth - kRight, plotBottom = kHeight - kBottom;
  double legendY = kTop + 10;
};

void RooflineWriter::collectPoints() {
  for (auto [index, kernel] : llvm::enumerate(report.after.kernels)) {
    if (kernel.work.flops <= 0 || kernel.work.bytes <= 0) {
      skipped.push_back(kernel.name);
      continue;
    }
    double measuredFlops = 0;
    if (measured && index < measured->kernels.size() &&
        measured->kernels[index].p50 > 0)
      measuredFlops = kernel.work.flops / (measured->kernels[index].p50 * 1e-6);
    points.push_back({kernel.name, kernel.work.intensity(),
                      kernel.work.flops / kernel.prediction.seconds(),
                      measuredFlops});
  }
}

Axes RooflineWriter::chooseAxes() const {
  double loX = 0.1, hiX = 1000, loY = 1e10, hiY = 0;
  for (const Ceiling &c : ceilings) {
    hiY = std::max(hiY, c.flops);
    hiX = std::max(hiX, c.flops / hbm * 4);
  }
  for (const Point &p : points) {
    loX = std::min(loX, p.intensity);
    hiX = std::max(hiX, p.intensity);
    loY = std::min(loY, p.predicted);
    if (p.measured > 0)
      loY = std::min(loY, p.measured);
  }
  return Axes{static_cast<int>(std::floor(std::log10(loX))),
              static_cast<int>(std::ceil(std::log10(hiX))),
              static_cast<int>(std::floor(std::log10(loY))),
              static_cast<int>(std::ceil(std::log10(hiY * 1.5)))};
}

/// The header, the grid with its decade labels and the axis title.
void RooflineWriter::writeFrame() {
  os << llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                      "font-family=\"sans-serif\" font-size=\"12\">\n",
                      kWidth, kHeight);
  os << llvm::formatv("<title>Roofline of @{0} on {1}</title>\n",
                      report::xmlEscape(report.after.function),
                      report::xmlEscape(t.description));
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << llvm::formatv("<text x=\"{0}\" y=\"28\" font-size=\"16\">Roofline: "
                      "@{1} on {2} ({3})</text>\n",
                      kLeft, report::xmlEscape(report.after.function),
                      report::xmlEscape(t.description),
                      report::xmlEscape(t.source));
  for (int e = axes.xMin; e <= axes.xMax; ++e) {
    double x = axes.x(std::pow(10.0, e));
    os << llvm::formatv("<line x1=\"{0:F1}\" y1=\"{1}\" x2=\"{0:F1}\" "
                        "y2=\"{2}\" stroke=\"#ddd\"/>\n",
                        x, kTop, plotBottom);
    os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1}\" "
                        "text-anchor=\"middle\">{2}</text>\n",
                        x, plotBottom + 18, decadeLabel(e, ""));
  }
  for (int e = axes.yMin; e <= axes.yMax; ++e) {
    double y = axes.y(std::pow(10.0, e));
    os << llvm::formatv("<line x1=\"{0}\" y1=\"{1:F1}\" x2=\"{2}\" "
                        "y2=\"{1:F1}\" stroke=\"#ddd\"/>\n",
                        kLeft, y, plotRight);
    os << llvm::formatv("<text x=\"{0}\" y=\"{1:F1}\" "
                        "text-anchor=\"end\">{2}</text>\n",
                        kLeft - 6, y + 4, decadeLabel(e, "FLOP/s"));
  }
  os << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" "
                      "height=\"{3}\" fill=\"none\" stroke=\"black\"/>\n",
                      kLeft, kTop, plotRight - kLeft, plotBottom - kTop);
  os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1}\" text-anchor=\"middle\">"
                      "arithmetic intensity (FLOP per byte of device "
                      "memory)</text>\n",
                      (kLeft + plotRight) / 2, kHeight - 25);
}

void RooflineWriter::legend(const std::string &text, const char *color,
                            const char *dash) {
  os << llvm::formatv("<line x1=\"{0}\" y1=\"{1:F1}\" x2=\"{2}\" "
                      "y2=\"{1:F1}\" stroke=\"{3}\" stroke-width=\"2\" "
                      "stroke-dasharray=\"{4}\"/>\n",
                      plotRight + 12, legendY, plotRight + 36, color, dash);
  // A long entry wraps after its first comma, so it fits the column.
  llvm::StringRef first = text, second;
  if (estimateWidth(text, 12) > kWidth - plotRight - 50)
    std::tie(first, second) = llvm::StringRef(text).split(", ");
  os << llvm::formatv("<text x=\"{0}\" y=\"{1:F1}\">{2}</text>\n",
                      plotRight + 42, legendY + 4, report::xmlEscape(first));
  if (!second.empty()) {
    legendY += 15;
    os << llvm::formatv("<text x=\"{0}\" y=\"{1:F1}\">{2}</text>\n",
                        plotRight + 42, legendY + 4, report::xmlEscape(second));
  }
  legendY += 20;
}

/// Ceilings: a slope at the bandwidth up to the ridge, then flat.
void RooflineWriter::writeCeilings() {
  const double xLo = std::pow(10.0, axes.xMin), xHi = std::pow(10.0, axes.xMax);
  const double yLo = std::pow(10.0, axes.yMin);
  auto slopeStart = [&](double bandwidth) {
    return std::max(xLo, yLo / bandwidth);
  };
  for (const Ceiling &c : ceilings) {
    double ridge = c.flops / hbm;
    double x0 = slopeStart(hbm);
    os << llvm::formatv(
        "<polyline fill=\"none\" stroke=\"{0}\" stroke-width=\"2\" "
        "points=\"{1:F1},{2:F1} {3:F1},{4:F1} {5:F1},{4:F1}\"/>\n",
        c.color, axes.x(x0), axes.y(x0 * hbm), axes.x(ridge), axes.y(c.flops),
        axes.x(xHi));
    legend(llvm::formatv("{0} {1:F1} TFLOP/s, ridge {2:F1}", c.label,
                         c.flops / 1e12, ridge),
           c.color, "none");
  }
  double l2Ridge = ceilings[1].flops / l2, x0 = slopeStart(l2);
  os << llvm::formatv("<polyline fill=\"none\" stroke=\"#888\" "
                      "stroke-dasharray=\"6 4\" points=\"{0:F1},{1:F1} "
                      "{2:F1},{3:F1}\"/>\n",
                      axes.x(x0), axes.y(x0 * l2), axes.x(l2Ridge),
                      axes.y(ceilings[1].flops));
  legend(llvm::formatv("HBM {0:F0} GB/s (solid slope)", hbm / 1e9), "#000",
         "none");
  legend(llvm::formatv("L2 {0:F0} GB/s", l2 / 1e9), "#888", "6 4");
}

void RooflineWriter::writeKernels() {
  if (points.empty())
    os << llvm::formatv(
        "<text class=\"empty\" x=\"{0:F1}\" y=\"{1:F1}\" "
        "text-anchor=\"middle\">No kernel does arithmetic: nothing to place "
        "on the roofline.</text>\n",
        (kLeft + plotRight) / 2, (kTop + plotBottom) / 2);
  // The points first, so no label covers one.
  for (const Point &p : points) {
    taken.push_back({axes.x(p.intensity) - 6, axes.y(p.predicted) - 6, 12, 12});
    if (p.measured > 0)
      taken.push_back(
          {axes.x(p.intensity) - 6, axes.y(p.measured) - 6, 12, 12});
  }
  for (const Point &p : points) {
    double x = axes.x(p.intensity), yp = axes.y(p.predicted);
    if (p.measured > 0) {
      double ym = axes.y(p.measured);
      os << llvm::formatv("<line x1=\"{0:F1}\" y1=\"{1:F1}\" x2=\"{0:F1}\" "
                          "y2=\"{2:F1}\" stroke=\"#2ca02c\"/>\n",
                          x, yp, ym);
      os << llvm::formatv(
          "<circle cx=\"{0:F1}\" cy=\"{1:F1}\" r=\"5\" "
          "fill=\"#2ca02c\" class=\"measured\"><title>{2}: measured {3} "
          "GFLOP/s</title></circle>\n",
          x, ym, report::xmlEscape(p.name),
          llvm::formatv("{0:F1}", p.measured / 1e9).str());
    }
    os << llvm::formatv(
        "<circle cx=\"{0:F1}\" cy=\"{1:F1}\" r=\"5\" "
        "fill=\"white\" stroke=\"#2ca02c\" "
        "stroke-width=\"2\" class=\"predicted\"><title>{2}: predicted {3} "
        "GFLOP/s at {4} FLOP/B</title></circle>\n",
        x, yp, report::xmlEscape(p.name),
        llvm::formatv("{0:F1}", p.predicted / 1e9).str(),
        llvm::formatv("{0:F2}", p.intensity).str());
    placeLabel(p.name, x, yp);
  }
}

void RooflineWriter::placeLabel(const std::string &name, double x, double y) {
  const double width = estimateWidth(name, 11), height = 11;
  // Right of the point above it, below it, then left of it, then further
  // out: the first box inside the plot that overlaps no label or point.
  const double offsets[][2] = {
      {8, -6},  {8, 14}, {-8 - width, -6},  {-8 - width, 14},
      {8, -20}, {8, 28}, {-8 - width, -20}, {-8 - width, 28}};
  for (const auto &offset : offsets) {
    Box box{x + offset[0], y + offset[1] - height, width, height + 3};
    const bool inside = box.x >= kLeft && box.x + box.w <= plotRight &&
                        box.y >= kTop && box.y + box.h <= plotBottom;
    if (!inside || llvm::any_of(taken, [&](const Box &other) {
          return box.overlaps(other);
        }))
      continue;
    taken.push_back(box);
    os << llvm::formatv("<text class=\"kernel-label\" x=\"{0:F1}\" "
                        "y=\"{1:F1}\" font-size=\"11\">{2}</text>\n",
                        box.x, y + offset[1], report::xmlEscape(name));
    return;
  }
  numbered.push_back(name);
  // The number where it overlaps nothing, if it can (else beside the point
  // anyway: the key still names it).
  const std::string number = std::to_string(numbered.size());
  const double numberWidth = estimateWidth(number, 10);
  // Points that crowd each other (a decode block's GEMMs sit at one
  // intensity) push a number further out along the column.
  const double places[][2] = {
      {7, -4},  {7, 14}, {-7 - numberWidth, -4},  {-7 - numberWidth, 14},
      {7, -16}, {7, 26}, {-7 - numberWidth, -16}, {-7 - numberWidth, 26},
      {7, -28}, {7, 38}, {-7 - numberWidth, -28}, {-7 - numberWidth, 38},
      {7, -40}, {7, 50}, {-7 - numberWidth, -40}, {-7 - numberWidth, 50}};
  Box box{x + 7, y - 14, numberWidth, 13};
  double baseline = y - 4;
  for (const auto &place : places) {
    Box candidate{x + place[0], y + place[1] - 10, numberWidth, 13};
    if (llvm::none_of(taken, [&](const Box &other) {
          return candidate.overlaps(other);
        })) {
      box = candidate;
      baseline = y + place[1];
      break;
    }
  }
  taken.push_back(box);
  os << llvm::formatv("<text class=\"kernel-number\" x=\"{0:F1}\" "
                      "y=\"{1:F1}\" font-size=\"10\">{2}</text>\n",
                      box.x, baseline, number);
}

void RooflineWriter::writeLegendAndNotes() {
  legendY += 10;
  os << llvm::formatv("<circle cx=\"{0}\" cy=\"{1:F1}\" r=\"5\" "
                      "fill=\"white\" stroke=\"#2ca02c\" "
                      "stroke-width=\"2\"/>\n",
                      plotRight + 24, legendY);
  os << llvm::formatv("<text x=\"{0}\" y=\"{1:F1}\">kernel, predicted</text>\n",
                      plotRight + 42, legendY + 4);
  legendY += 20;
  if (measured) {
    os << llvm::formatv("<circle cx=\"{0}\" cy=\"{1:F1}\" r=\"5\" "
                        "fill=\"#2ca02c\"/>\n",
                        plotRight + 24, legendY);
    os << llvm::formatv("<text x=\"{0}\" y=\"{1:F1}\">kernel, measured P50"
                        "</text>\n",
                        plotRight + 42, legendY + 4);
    legendY += 20;
  }
  // Names that found no free place: numbered at their point, listed
  // under the legend.
  if (!numbered.empty()) {
    legendY += 10;
    os << llvm::formatv("<text x=\"{0}\" y=\"{1:F1}\" "
                        "font-size=\"11\">kernels by number:</text>\n",
                        plotRight + 12, legendY + 4);
    legendY += 16;
    for (auto [index, name] : llvm::enumerate(numbered)) {
      os << llvm::formatv("<text class=\"key\" x=\"{0}\" y=\"{1:F1}\" "
                          "font-size=\"11\">{2}: {3}</text>\n",
                          plotRight + 12, legendY + 4, index + 1,
                          report::xmlEscape(name));
      legendY += 14;
    }
  }
  if (!skipped.empty()) {
    // As many names as fit one line, then how many more.
    std::string names;
    size_t shown = 0;
    for (const std::string &name : skipped) {
      std::string next = (names.empty() ? "" : ", ") + name;
      if (estimateWidth(names + next, 11) > kWidth - kLeft - 320)
        break;
      names += next;
      ++shown;
    }
    if (shown < skipped.size())
      names += llvm::formatv(" and {0} more", skipped.size() - shown).str();
    os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" font-size=\"11\">Not "
                        "drawn (no FLOPs, so off a log axis): {2}</text>\n",
                        kLeft, kHeight - 8, report::xmlEscape(names));
  }
}

} // namespace

void writeRooflineSvg(const Report &report, llvm::raw_ostream &os) {
  RooflineWriter(report, os).write();
}

} // namespace opfuse
