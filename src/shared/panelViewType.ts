/** The metric panels' view type (one for every metric panel kind). */
export const PANEL_VIEW_TYPE = 'simlens.metricPanel';
