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
constexpr double kLeft = 90, kRight = 220, kTop = 60, kBottom = 70;

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
  os << llvm::formatv("<text x=\"{0}\" y=\"{1:F1}\">{2}</text>\n",
                      plotRight + 42, legendY + 4, report::xmlEscape(text));
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
    os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1:F1}\" "
                        "font-size=\"11\">{2}</text>\n",
                        x + 8, yp - 6, report::xmlEscape(p.name));
  }
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
  if (!skipped.empty()) {
    std::string names;
    for (const std::string &name : skipped)
      names += (names.empty() ? "" : ", ") + name;
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
